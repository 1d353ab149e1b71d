/** `GET /v1/customers/{id}/export` over HTTP (D59): the customer, their conversations and messages, oldest first. */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { concrete } from "./Endpoints.js"
import { raw, tenant, testServer } from "./Harness.js"

layer(testServer("personal-data"))("personal data", (it) => {
  it.effect("D59: the export answers the customer and each of their conversations with its messages", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const customer = (yield* raw("POST", "/v1/customers", { token, json: { email: "ada@example.test" } }))
        .body as { id: string }
      const conversation = (yield* raw("POST", "/v1/conversations", { token, json: { customer_id: customer.id } }))
        .body as { id: string }
      for (const content of ["first", "second"]) {
        const posted = yield* raw("POST", `/v1/conversations/${conversation.id}/messages`, {
          token,
          json: { sender_type: "customer", sender_id: customer.id, content }
        })
        assert.strictEqual(posted.status, 201)
      }
      const reader = yield* raw("GET", `/v1/customers/${customer.id}`, { token })
      const response = yield* raw("GET", `/v1/customers/${customer.id}/export`, { token })
      assert.strictEqual(response.status, 200)
      const body = response.body as {
        customer: unknown
        conversations: Array<{ id: string; messages: Array<{ content: string }> }>
      }
      assert.deepStrictEqual(body.customer, reader.body)
      assert.deepStrictEqual(body.conversations.map((c) => c.id), [conversation.id])
      assert.deepStrictEqual(body.conversations[0]!.messages.map((m) => m.content), ["first", "second"])
      const missing = yield* raw("GET", concrete("/v1/customers/{id}/export"), { token })
      assert.strictEqual(missing.status, 404)
    }))
})
