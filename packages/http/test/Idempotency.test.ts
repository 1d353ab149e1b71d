/** `Idempotency-Key` over HTTP (D52): replays, reuse, bounds, failures not recorded, the typed client. */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { withHeaders } from "../src/Client.js"
import { envelope, raw, tenant, testServer } from "./Harness.js"

layer(testServer("idempotency"), { excludeTestServices: true })("idempotency", (it) => {
  it.effect("a retried POST answers the first status and body with Idempotent-Replayed: true, and writes once", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const send = (json: unknown, key = "create-customer-1") =>
        raw("POST", "/v1/customers", { token, json, headers: { "idempotency-key": key } })
      const first = yield* send({ email: "retry@example.test" })
      assert.strictEqual(first.status, 201)
      assert.isNull(first.headers.get("idempotent-replayed"))
      const second = yield* send({ email: "retry@example.test" })
      assert.strictEqual(second.status, 201)
      assert.strictEqual(second.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(second.text, first.text)
      assert.strictEqual(second.headers.get("content-type"), first.headers.get("content-type"))
      assert.strictEqual(second.headers.get("etag"), first.headers.get("etag"))
      const list = yield* client.customers.list({ query: {} })
      assert.strictEqual(list.meta.total, 1)

      const reused = yield* send({ email: "different@example.test" })
      assert.strictEqual(reused.status, 422)
      assert.deepStrictEqual(
        reused.body,
        envelope("This Idempotency-Key was already used with a different request.", "IDEMPOTENCY_KEY_REUSED")
      )
      // The same key on another path is another request too.
      const elsewhere = yield* raw("POST", "/v1/companies", {
        token,
        json: { email: "retry@example.test" },
        headers: { "idempotency-key": "create-customer-1" }
      })
      assert.strictEqual(elsewhere.status, 422)
      assert.strictEqual((yield* client.customers.list({ query: {} })).meta.total, 1)
    }))

  it.effect("a key over 255 characters is 422; a failed first request is not recorded and its retry runs again", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const long = yield* raw("POST", "/v1/companies", {
        token,
        json: { name: "x" },
        headers: { "idempotency-key": "k".repeat(256) }
      })
      assert.strictEqual(long.status, 422)
      assert.deepStrictEqual(Object.keys((long.body as { errors: object }).errors), ["idempotency_key"])
      assert.strictEqual((yield* client.companies.list({ query: {} })).meta.total, 0)

      const invalid = yield* raw("POST", "/v1/companies", { token, json: {}, headers: { "idempotency-key": "k1" } })
      assert.strictEqual(invalid.status, 422)
      const fixed = yield* raw("POST", "/v1/companies", { token, json: {}, headers: { "idempotency-key": "k1" } })
      assert.strictEqual(fixed.status, 422)
      assert.isNull(fixed.headers.get("idempotent-replayed"))
      const ok = yield* raw("POST", "/v1/companies", {
        token,
        json: { name: "Now valid" },
        headers: { "idempotency-key": "k2" }
      })
      assert.strictEqual(ok.status, 201)
    }))

  it.effect("PUT and DELETE accept a key; a replayed DELETE is 204 again; GET ignores it", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const company = yield* client.companies.create({ payload: { name: "Acme" } })
      const del = () =>
        raw("DELETE", `/v1/companies/${company.id}`, { token, headers: { "idempotency-key": "delete-acme" } })
      assert.strictEqual((yield* del()).status, 204)
      const again = yield* del()
      assert.strictEqual(again.status, 204)
      assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
      const read = yield* raw("GET", "/v1/companies", { token, headers: { "idempotency-key": "delete-acme" } })
      assert.strictEqual(read.status, 200)
    }))

  it.effect("the typed client sends the key with withHeaders and decodes the errors to core's classes", () =>
    Effect.gen(function*() {
      const { client } = yield* tenant()
      const create = (name: string) =>
        client.companies.create({ payload: { name } }).pipe(withHeaders({ "idempotency-key": "typed-1" }))
      const first = yield* create("Typed")
      const second = yield* create("Typed")
      assert.strictEqual(second.id, first.id)
      const reused = yield* Effect.flip(create("Other"))
      assert.strictEqual(reused._tag, "IdempotencyKeyReused")
    }))
})
