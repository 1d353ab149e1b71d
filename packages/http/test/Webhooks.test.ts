/** `/v1/webhooks` end to end: subscriptions, URL policy, secrets, the delivery log (D36-D38, D46). */
import { assert, layer } from "@effect/vitest"
import { NotFound, ValidationError, WebhookId } from "@support-engine/core"
import { DateTime, Effect, Redacted } from "effect"
import { envelope, raw, tenant, testServer } from "./Harness.js"

const HOOK = "https://hooks.example.test/support"

layer(testServer("webhooks"), { excludeTestServices: true })("webhooks", (it) => {
  it.effect("create (201) shows the secret once; get, list, update (events normalised), delete (204)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const created = yield* raw("POST", "/v1/webhooks", {
        token,
        json: { url: HOOK, events: ["customer.created", "customer.created"], description: "CRM sync" }
      })
      assert.strictEqual(created.status, 201)
      const body = created.body as { id: string; secret: string; events: Array<string>; is_active: boolean }
      assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      assert.deepStrictEqual(body.events, ["customer.created"])
      assert.isTrue(body.is_active)
      const fetched = yield* raw("GET", `/v1/webhooks/${body.id}`, { token })
      assert.notProperty(fetched.body, "secret")
      const typed = yield* client.webhooks.create({ payload: { url: HOOK, events: ["*"] } })
      assert.isTrue(Redacted.value(typed.secret).startsWith("whsec_"))
      const updated = yield* client.webhooks.update({
        path: { id: typed.id },
        payload: { events: ["agent.created", "*"], description: null }
      })
      assert.deepStrictEqual(updated.events, ["*"])
      const list = yield* client.webhooks.list({ urlParams: {} })
      assert.deepStrictEqual(list.data.map((w) => w.id), [typed.id, body.id])
      assert.strictEqual((yield* raw("DELETE", `/v1/webhooks/${body.id}`, { token })).status, 204)
      assert.instanceOf(yield* Effect.flip(client.webhooks.get({ path: { id: WebhookId.make(body.id) } })), NotFound)
    }))

  it.effect("the URL must be https and public: http, loopback, private and names resolving to them are 422 (D36)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      for (
        const url of [
          "http://hooks.example.test/x",
          "https://127.0.0.1/x",
          "https://[::1]/x",
          "https://10.1.2.3/x",
          "https://192.168.0.10/x",
          "https://169.254.169.254/latest",
          "https://localhost/x",
          "ftp://hooks.example.test/x"
        ]
      ) {
        const refused = yield* raw("POST", "/v1/webhooks", { token, json: { url, events: ["*"] } })
        assert.strictEqual(refused.status, 422, url)
        assert.deepStrictEqual(Object.keys((refused.body as { errors: object }).errors), ["url"], url)
      }
      const created = yield* client.webhooks.create({ payload: { url: HOOK, events: ["*"] } })
      const moved = yield* Effect.flip(client.webhooks.update({
        path: { id: created.id },
        payload: { url: "https://localhost/x" }
      }))
      assert.instanceOf(moved, ValidationError)
      const events = yield* raw("POST", "/v1/webhooks", { token, json: { url: HOOK, events: ["nope"] } })
      assert.deepStrictEqual(Object.keys((events.body as { errors: object }).errors), ["events.0"])
      const none = yield* raw("POST", "/v1/webhooks", { token, json: { url: HOOK, events: [] } })
      assert.deepStrictEqual(Object.keys((none.body as { errors: object }).errors), ["events"])
    }))

  it.effect("rotate-secret (200): a new secret, the old one valid for the grace period (D46)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const created = yield* client.webhooks.create({ payload: { url: HOOK, events: ["*"] } })
      const rotated = yield* client.webhooks.rotateSecret({ path: { id: created.id }, payload: {} })
      assert.notStrictEqual(Redacted.value(rotated.secret), Redacted.value(created.secret))
      const expires = rotated.previous_secret_expires_at
      assert.isNotNull(expires)
      const hours = DateTime.distance(rotated.updated_at, expires!) / 3_600_000
      assert.closeTo(hours, 24, 0.01)
      const immediate = yield* raw("POST", `/v1/webhooks/${created.id}/rotate-secret`, {
        token,
        json: { grace_period_seconds: 0 }
      })
      assert.strictEqual(immediate.status, 200)
      assert.strictEqual((immediate.body as { previous_secret_expires_at: unknown }).previous_secret_expires_at, null)
      const tooLong = yield* raw("POST", `/v1/webhooks/${created.id}/rotate-secret`, {
        token,
        json: { grace_period_seconds: 8 * 24 * 3600 }
      })
      assert.strictEqual(tooLong.status, 422)
      assert.deepStrictEqual(Object.keys((tooLong.body as { errors: object }).errors), ["grace_period_seconds"])
      const bodyless = yield* raw("POST", `/v1/webhooks/${created.id}/rotate-secret`, { token })
      assert.strictEqual(bodyless.status, 200)
    }))

  it.effect("an event becomes a delivery in the log; redeliver (200); enable (200); unknown delivery 404", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const webhook = yield* client.webhooks.create({ payload: { url: HOOK, events: ["customer.created"] } })
      yield* client.customers.create({ payload: { email: "ada@example.test" } })
      yield* client.companies.create({ payload: { name: "No event for companies" } })
      const log = yield* client.webhooks.deliveries({ path: { id: webhook.id }, urlParams: {} })
      assert.deepStrictEqual(log.data.map((d) => [d.event, d.status]), [["customer.created", "pending"]])
      const delivery = log.data[0]!
      const filtered = yield* raw("GET", `/v1/webhooks/${webhook.id}/deliveries?status=failed`, { token })
      assert.deepStrictEqual((filtered.body as { data: Array<unknown> }).data, [])
      assert.strictEqual(
        (yield* raw("GET", `/v1/webhooks/${webhook.id}/deliveries?status=lost`, { token })).status,
        422
      )
      const again = yield* client.webhooks.redeliver({ path: { id: webhook.id, deliveryId: delivery.id } })
      assert.strictEqual(again.id, delivery.id)
      const missing = yield* raw(
        "POST",
        `/v1/webhooks/${webhook.id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`,
        { token }
      )
      assert.deepStrictEqual([missing.status, missing.body], [
        404,
        envelope("Delivery not found.", "RESOURCE_NOT_FOUND")
      ])
      const enabled = yield* client.webhooks.enable({ path: { id: webhook.id } })
      assert.isTrue(enabled.is_active)
    }))
})
