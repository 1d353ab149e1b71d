/** ETag and If-Match over HTTP (D52): tags on single resources, 412 on a stale If-Match, nothing changed. */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { withHeaders } from "../src/Client.js"
import { envelope, raw, tenant, testServer } from "./Harness.js"

layer(testServer("preconditions"), { excludeTestServices: true })("preconditions", (it) => {
  it.effect("GET, POST and PUT answers carry a strong ETag that changes when the resource does", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const [created, createdResponse] = yield* client.customers.create({
        payload: { email: "etag@example.test" },
        responseMode: "decoded-and-response"
      })
      const v1 = createdResponse.headers["etag"]
      assert.match(v1!, /^"[0-9a-z]{22}"$/)
      const read = yield* raw("GET", `/v1/customers/${created.id}`, { token })
      assert.strictEqual(read.headers.get("etag"), v1)

      const updated = yield* raw("PUT", `/v1/customers/${created.id}`, {
        token,
        json: { first_name: "New" },
        headers: { "if-match": v1! }
      })
      assert.strictEqual(updated.status, 200)
      const v2 = updated.headers.get("etag")!
      assert.notStrictEqual(v2, v1)
      assert.strictEqual((yield* raw("GET", `/v1/customers/${created.id}`, { token })).headers.get("etag"), v2)
      // Lists carry no ETag.
      assert.isNull((yield* raw("GET", "/v1/customers", { token })).headers.get("etag"))
    }))

  it.effect("a stale If-Match on PUT or DELETE is 412 PRECONDITION_FAILED and changes nothing", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const [company, response] = yield* client.companies.create({
        payload: { name: "Acme" },
        responseMode: "decoded-and-response"
      })
      const v1 = response.headers["etag"]!
      yield* raw("PUT", `/v1/companies/${company.id}`, { token, json: { name: "Acme 2" } })

      const put = yield* raw("PUT", `/v1/companies/${company.id}`, {
        token,
        json: { name: "Lost update" },
        headers: { "if-match": v1 }
      })
      assert.strictEqual(put.status, 412)
      assert.deepStrictEqual(
        put.body,
        envelope("The resource has changed since the version given in If-Match.", "PRECONDITION_FAILED")
      )
      const del = yield* raw("DELETE", `/v1/companies/${company.id}`, { token, headers: { "if-match": v1 } })
      assert.strictEqual(del.status, 412)
      const now = yield* client.companies.get({ params: { id: company.id } })
      assert.strictEqual(now.name, "Acme 2")

      // The typed client sends If-Match through withHeaders and fails with the core error.
      const typed = yield* Effect.flip(
        client.companies.update({ params: { id: company.id }, payload: { name: "x" } }).pipe(
          withHeaders({ "if-match": v1 })
        )
      )
      assert.strictEqual(typed._tag, "PreconditionFailed")
      const [, current] = yield* client.companies.get({
        params: { id: company.id },
        responseMode: "decoded-and-response"
      })
      yield* client.companies.delete({ params: { id: company.id } }).pipe(
        withHeaders({ "if-match": current.headers["etag"]! })
      )
      assert.strictEqual((yield* raw("GET", `/v1/companies/${company.id}`, { token })).status, 404)
    }))

  it.effect("every single-resource kind answers with an ETag", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const agent = yield* client.agents.create({ payload: { name: "Bot" } })
      const customer = yield* client.customers.create({ payload: { email: "k@example.test" } })
      const conversation = yield* client.conversations.create({ payload: { customer_id: customer.id } })
      const training = yield* client.training.create({ payload: { type: "text", content: "hello" } })
      const article = yield* client.kb.create({
        payload: { translations: [{ locale: "en", title: "T", content: "C" }] }
      })
      for (
        const path of [
          `/v1/agents/${agent.id}`,
          `/v1/conversations/${conversation.id}`,
          `/v1/training-data/${training.id}`,
          `/v1/kb-articles/${article.id}`
        ]
      ) {
        const response = yield* raw("GET", path, { token })
        assert.strictEqual(response.status, 200, path)
        assert.match(response.headers.get("etag") ?? "", /^"[0-9a-z]{22}"$/, path)
      }
    }))
})
