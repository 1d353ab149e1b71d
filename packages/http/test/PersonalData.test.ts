/**
 * Personal data over HTTP (D59): `GET /v1/customers/{id}/export` (the customer, their conversations and messages,
 * oldest first) and `POST /v1/customers/{id}/erase`.
 */
import { assert, layer } from "@effect/vitest"
import { CustomerId } from "@support-engine/core"
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

  it.effect("D59: erase answers the counts; the customer, their text and their event data are gone", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const created = yield* raw("POST", "/v1/customers", {
        token,
        json: { email: "grace@example.test", first_name: "Vexqor" },
        headers: { "idempotency-key": "erase-create" }
      })
      const customer = created.body as { id: string }
      const conversation = (yield* raw("POST", "/v1/conversations", {
        token,
        json: { customer_id: customer.id, subject: "Vexqor order" }
      })).body as { id: string }
      for (const content of ["Vexqor here", "again"]) {
        yield* raw("POST", `/v1/conversations/${conversation.id}/messages`, {
          token,
          json: { sender_type: "customer", sender_id: customer.id, content }
        })
      }
      const response = yield* raw("POST", `/v1/customers/${customer.id}/erase`, { token })
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(response.body, {
        customer_id: customer.id,
        conversations: 1,
        messages: 2,
        events_redacted: 4
      })
      assert.strictEqual((yield* raw("GET", `/v1/customers/${customer.id}`, { token })).status, 404)
      assert.strictEqual((yield* raw("GET", `/v1/conversations/${conversation.id}`, { token })).status, 404)
      assert.strictEqual((yield* raw("POST", `/v1/customers/${customer.id}/erase`, { token })).status, 404)
      for (const path of ["/v1/customers?q=vexqor", "/v1/conversations?q=vexqor", `/v1/messages`]) {
        const found = (yield* raw("GET", path, { token })).body as { data: Array<unknown> }
        assert.deepStrictEqual(found.data, [], path)
      }
      const events = ((yield* raw("GET", "/v1/events", { token })).body as {
        data: Array<{ event: string; data: unknown; actor: unknown; occurred_at: string; id: string }>
      }).data
      assert.deepStrictEqual(
        events.map((e) => [e.event, e.data]).reverse(),
        [
          ["customer.created", { redacted: true }],
          ["conversation.created", { redacted: true }],
          ["conversation.customer.message.created", { redacted: true }],
          ["conversation.customer.message.created", { redacted: true }],
          ["customer.erased", { id: customer.id }]
        ]
      )
      for (const e of events) assert.deepStrictEqual(Object.keys(e), ["id", "event", "occurred_at", "actor", "data"])
      // The stored answer of the creation's idempotency key went with them: the key now makes a new customer.
      const replayed = yield* raw("POST", "/v1/customers", {
        token,
        json: { email: "grace@example.test", first_name: "Vexqor" },
        headers: { "idempotency-key": "erase-create" }
      })
      assert.strictEqual(replayed.status, 201)
      assert.notStrictEqual((replayed.body as { id: string }).id, customer.id)
      // The typed client.
      const erased = yield* client.customers.erase({
        params: { id: CustomerId.make((replayed.body as { id: string }).id) }
      })
      assert.deepStrictEqual({ ...erased, customer_id: "" }, {
        customer_id: "",
        conversations: 0,
        messages: 0,
        events_redacted: 1
      })
      const again = yield* raw("POST", "/v1/customers", { token, json: { email: "grace@example.test" } })
      assert.strictEqual(again.status, 201)
    }))
})
