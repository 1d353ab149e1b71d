/** `q` over HTTP (D52): customers, conversations and articles; 422 for a query without words or with a cursor. */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { raw, tenant, testServer } from "./Harness.js"

interface Envelope {
  readonly data: ReadonlyArray<{ readonly id: string }>
  readonly meta: { readonly total: number | null; readonly next_cursor: string | null }
}

layer(testServer("search"), { excludeTestServices: true })("search", (it) => {
  it.effect("q finds customers, conversations (by message) and articles; the typed client passes it", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const ada = yield* client.customers.create({ payload: { first_name: "Ada", email: "ada@example.test" } })
      yield* client.customers.create({ payload: { first_name: "Grace" } })
      const conversation = yield* client.conversations.create({ payload: { customer_id: ada.id } })
      yield* client.messages.create({
        params: { id: conversation.id },
        payload: { sender_type: "customer", sender_id: ada.id, content: "Where is my parcel?" }
      })
      const article = yield* client.kb.create({
        payload: { translations: [{ locale: "en", title: "Tracking a parcel", content: "Use the tracking link." }] }
      })
      const get = (path: string) => Effect.map(raw("GET", path, { token }), (r) => r.body as Envelope)
      const customers = yield* get("/v1/customers?q=ADA%20exam")
      assert.deepStrictEqual(customers.data.map((c) => c.id), [ada.id])
      assert.deepStrictEqual([customers.meta.total, customers.meta.next_cursor], [1, null])
      assert.deepStrictEqual((yield* get("/v1/conversations?q=parc")).data.map((c) => c.id), [conversation.id])
      assert.deepStrictEqual((yield* get("/v1/kb-articles?q=tracking")).data.map((a) => a.id), [article.id])
      const typed = yield* client.customers.list({ query: { q: "grace" } })
      assert.deepStrictEqual(typed.data.map((c) => c.first_name), ["Grace"])
    }))

  it.effect("q without a letter or digit, over 200 characters, or with cursor or updated_since is 422 on q", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      for (
        const query of ["q=%21%21", `q=${"a".repeat(201)}`, "q=a&cursor=abc", "q=a&updated_since=2026-01-01T00:00:00Z"]
      ) {
        const response = yield* raw("GET", `/v1/customers?${query}`, { token })
        assert.strictEqual(response.status, 422, query)
        assert.deepStrictEqual(Object.keys((response.body as { errors: object }).errors), ["q"], query)
      }
    }))
})
