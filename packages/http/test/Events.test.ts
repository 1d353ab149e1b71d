/** `GET /v1/events` (D44, D45). */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { envelope, raw, tenant, testServer } from "./Harness.js"

interface EventBody {
  readonly id: string
  readonly event: string
  readonly occurred_at: string
  readonly actor: { readonly type: string; readonly id: string | null }
  readonly data: Record<string, unknown>
}

layer(testServer("events"), { excludeTestServices: true })("events", (it) => {
  it.effect("lists the workspace's events newest first, with actor and data as the API returns them", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const customer = yield* client.customers.create({ payload: { email: "ada@example.test" } })
      yield* client.customers.update({ params: { id: customer.id }, payload: { first_name: "Ada" } })
      yield* client.customers.delete({ params: { id: customer.id } })
      const response = yield* raw("GET", "/v1/events", { token })
      assert.strictEqual(response.status, 200)
      const events = response.body as { data: Array<EventBody>; meta: { total: number } }
      assert.deepStrictEqual(events.data.map((e) => e.event), [
        "customer.deleted",
        "customer.updated",
        "customer.created"
      ])
      assert.strictEqual(events.meta.total, 3)
      const created = events.data[2]!
      assert.strictEqual(created.actor.type, "api_token")
      assert.strictEqual(created.actor.id, token.slice(0, 36))
      assert.strictEqual(created.data.email, "ada@example.test")
      assert.match(created.occurred_at, /\+00:00$/)
      assert.deepStrictEqual(events.data[0]!.data, { id: customer.id })
      const other = yield* tenant()
      assert.strictEqual((yield* other.client.events.list({ query: {} })).meta.total, 0)
    }))

  it.effect("filters by event type; `after` returns only later events, oldest first (D45)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const first = yield* client.customers.create({ payload: { email: "a@example.test" } })
      yield* client.customers.create({ payload: { email: "b@example.test" } })
      yield* client.customers.update({ params: { id: first.id }, payload: { first_name: "A" } })
      const updates = yield* client.events.list({ query: { event: "customer.updated" } })
      assert.deepStrictEqual(updates.data.map((e) => e.event), ["customer.updated"])
      const all = yield* client.events.list({ query: {} })
      const oldest = all.data[all.data.length - 1]!
      const later = yield* client.events.list({ query: { after: oldest.id } })
      assert.deepStrictEqual(later.data.map((e) => e.event), ["customer.created", "customer.updated"])
      assert.strictEqual((yield* raw("GET", "/v1/events?event=customer.exploded", { token })).status, 422)
      const unknown = yield* raw("GET", "/v1/events?after=00000000-0000-4000-8000-000000000000", { token })
      assert.strictEqual(unknown.status, 404)
      assert.deepStrictEqual(unknown.body, envelope("Event not found.", "RESOURCE_NOT_FOUND"))
    }))
})
