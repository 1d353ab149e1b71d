/**
 * `/v1/webhooks` end to end: subscriptions, URL policy, secrets, the delivery log (D36-D38, D46), and the
 * operations of D52: ETag and If-Match, ping, recover.
 */
import { assert, layer } from "@effect/vitest"
import { NotFound, ValidationError, WebhookId } from "@support-engine/core"
import { DateTime, Duration, Effect, Redacted } from "effect"
import { envelope, fanOut, raw, tenant, testServer } from "./Harness.js"

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
        params: { id: typed.id },
        payload: { events: ["agent.created", "*"], description: null }
      })
      assert.deepStrictEqual(updated.events, ["*"])
      const list = yield* client.webhooks.list({ query: {} })
      assert.deepStrictEqual(list.data.map((w) => w.id), [typed.id, body.id])
      assert.strictEqual((yield* raw("DELETE", `/v1/webhooks/${body.id}`, { token })).status, 204)
      assert.instanceOf(yield* Effect.flip(client.webhooks.get({ params: { id: WebhookId.make(body.id) } })), NotFound)
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
        params: { id: created.id },
        payload: { url: "https://localhost/x" }
      }))
      assert.instanceOf(moved, ValidationError)
      const events = yield* raw("POST", "/v1/webhooks", { token, json: { url: HOOK, events: ["nope"] } })
      assert.deepStrictEqual(Object.keys((events.body as { errors: object }).errors), ["events.0"])
      const none = yield* raw("POST", "/v1/webhooks", { token, json: { url: HOOK, events: [] } })
      assert.deepStrictEqual(Object.keys((none.body as { errors: object }).errors), ["events"])
    }))

  it.effect("at most 20 webhooks per workspace: the 21st create is a 422 naming the limit; a delete frees one (D50)", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const other = yield* tenant()
      const ids: Array<string> = []
      for (let i = 0; i < 20; i++) {
        const created = yield* raw("POST", "/v1/webhooks", { token, json: { url: `${HOOK}/${i}`, events: ["*"] } })
        assert.strictEqual(created.status, 201)
        ids.push((created.body as { id: string }).id)
      }
      const refused = yield* raw("POST", "/v1/webhooks", { token, json: { url: HOOK, events: ["*"] } })
      assert.strictEqual(refused.status, 422)
      assert.deepStrictEqual(refused.body, {
        success: false,
        message:
          "A workspace may have at most 20 webhooks (SUPPORT_WEBHOOK_MAX_PER_WORKSPACE); delete one to create another."
      })
      const list = yield* raw("GET", "/v1/webhooks?per_page=100", { token })
      assert.strictEqual((list.body as { meta: { total: number } }).meta.total, 20, "nothing of the refused one")
      const elsewhere = yield* raw("POST", "/v1/webhooks", { token: other.token, json: { url: HOOK, events: ["*"] } })
      assert.strictEqual(elsewhere.status, 201, "the limit is per workspace")
      assert.strictEqual((yield* raw("DELETE", `/v1/webhooks/${ids[0]}`, { token })).status, 204)
      const again = yield* raw("POST", "/v1/webhooks", { token, json: { url: HOOK, events: ["*"] } })
      assert.strictEqual(again.status, 201)
    }))

  it.effect("rotate-secret (200): a new secret, the old one valid for the grace period (D46)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const created = yield* client.webhooks.create({ payload: { url: HOOK, events: ["*"] } })
      const rotated = yield* client.webhooks.rotateSecret({ params: { id: created.id }, payload: {} })
      assert.notStrictEqual(Redacted.value(rotated.secret), Redacted.value(created.secret))
      const expires = rotated.previous_secret_expires_at
      assert.isNotNull(expires)
      const hours = Duration.toMillis(DateTime.distance(rotated.updated_at, expires!)) / 3_600_000
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
      yield* fanOut
      const log = yield* client.webhooks.deliveries({ params: { id: webhook.id }, query: {} })
      assert.deepStrictEqual(log.data.map((d) => [d.event, d.status]), [["customer.created", "pending"]])
      const delivery = log.data[0]!
      const filtered = yield* raw("GET", `/v1/webhooks/${webhook.id}/deliveries?status=failed`, { token })
      assert.deepStrictEqual((filtered.body as { data: Array<unknown> }).data, [])
      assert.strictEqual(
        (yield* raw("GET", `/v1/webhooks/${webhook.id}/deliveries?status=lost`, { token })).status,
        422
      )
      const again = yield* client.webhooks.redeliver({ params: { id: webhook.id, deliveryId: delivery.id } })
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
      const enabled = yield* client.webhooks.enable({ params: { id: webhook.id } })
      assert.isTrue(enabled.is_active)
    }))

  it.effect("ETag on single webhooks; If-Match on PUT and DELETE: stale is 412 and changes nothing (D52)", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const created = yield* raw("POST", "/v1/webhooks", { token, json: { url: HOOK, events: ["*"] } })
      const id = (created.body as { id: string }).id
      const fetched = yield* raw("GET", `/v1/webhooks/${id}`, { token })
      const v1 = fetched.headers.get("etag")
      assert.match(v1 ?? "", /^"[0-9a-z]{22}"$/)
      assert.strictEqual(created.headers.get("etag"), v1, "the create answer's tag is the webhook's")
      const updated = yield* raw("PUT", `/v1/webhooks/${id}`, {
        token,
        json: { description: "CRM" },
        headers: { "if-match": v1! }
      })
      assert.strictEqual(updated.status, 200)
      const v2 = updated.headers.get("etag")
      assert.notStrictEqual(v2, v1)
      const stale = yield* raw("PUT", `/v1/webhooks/${id}`, {
        token,
        json: { url: "https://elsewhere.example.test/x" },
        headers: { "if-match": v1! }
      })
      assert.deepStrictEqual([stale.status, stale.body], [
        412,
        envelope("The resource has changed since the version given in If-Match.", "PRECONDITION_FAILED")
      ])
      const after = yield* raw("GET", `/v1/webhooks/${id}`, { token })
      assert.strictEqual((after.body as { url: string }).url, HOOK, "nothing changed")
      assert.strictEqual(after.headers.get("etag"), v2)
      const staleDelete = yield* raw("DELETE", `/v1/webhooks/${id}`, { token, headers: { "if-match": v1! } })
      assert.strictEqual(staleDelete.status, 412)
      assert.strictEqual(
        (yield* raw("DELETE", `/v1/webhooks/${id}`, { token, headers: { "if-match": v2! } })).status,
        204
      )
    }))

  it.effect("ping (202) queues a webhook.ping delivery to that webhook alone, not in /events (D52)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const target = yield* client.webhooks.create({ payload: { url: HOOK, events: ["agent.created"] } })
      const other = yield* client.webhooks.create({ payload: { url: HOOK, events: ["*"] } })
      const pinged = yield* raw("POST", `/v1/webhooks/${target.id}/ping`, { token })
      assert.strictEqual(pinged.status, 202)
      const delivery = pinged.body as { id: string; event: string; status: string; webhook_id: string }
      assert.deepStrictEqual([delivery.event, delivery.status, delivery.webhook_id], [
        "webhook.ping",
        "pending",
        target.id
      ])
      const typed = yield* client.webhooks.ping({ params: { id: target.id } })
      assert.strictEqual(typed.event, "webhook.ping")
      const log = yield* client.webhooks.deliveries({ params: { id: target.id }, query: {} })
      assert.deepStrictEqual(log.data.map((d) => d.id), [typed.id, delivery.id])
      const otherLog = yield* client.webhooks.deliveries({ params: { id: other.id }, query: {} })
      assert.strictEqual(otherLog.meta.total, 0)
      const events = yield* raw("GET", "/v1/events", { token })
      assert.deepStrictEqual((events.body as { data: Array<unknown> }).data, [])
      const subscribe = yield* raw("POST", "/v1/webhooks", { token, json: { url: HOOK, events: ["webhook.ping"] } })
      assert.deepStrictEqual(Object.keys((subscribe.body as { errors: object }).errors), ["events.0"])
      const missing = yield* raw("POST", "/v1/webhooks/00000000-0000-4000-8000-000000000000/ping", { token })
      assert.deepStrictEqual([missing.status, missing.body], [
        404,
        envelope("Webhook not found.", "RESOURCE_NOT_FOUND")
      ])
      const reader = yield* tenant(["external-api:read"])
      assert.strictEqual((yield* raw("POST", `/v1/webhooks/${target.id}/ping`, { token: reader.token })).status, 403)
    }))

  it.effect("recover (202) answers how many deliveries it queued again; since is a required RFC 3339 time (D52)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const webhook = yield* client.webhooks.create({ payload: { url: HOOK, events: ["*"] } })
      const since = "2026-01-01T00:00:00Z"
      const recovered = yield* raw("POST", `/v1/webhooks/${webhook.id}/recover`, { token, json: { since } })
      assert.deepStrictEqual([recovered.status, recovered.body], [202, {
        webhook_id: webhook.id,
        since: "2026-01-01T00:00:00.000+00:00",
        until: null,
        recovered: 0
      }])
      const typed = yield* client.webhooks.recover({
        params: { id: webhook.id },
        payload: { since: DateTime.makeUnsafe(since) }
      })
      assert.strictEqual(typed.recovered, 0)
      for (
        const [json, field] of [
          [{}, "since"],
          [{ since: "Jan 2 2026" }, "since"],
          [{ since, until: since }, "until"],
          [{ since, until: "yesterday" }, "until"]
        ] as const
      ) {
        const refused = yield* raw("POST", `/v1/webhooks/${webhook.id}/recover`, { token, json })
        assert.strictEqual(refused.status, 422, JSON.stringify(json))
        assert.deepStrictEqual(Object.keys((refused.body as { errors: object }).errors), [field])
      }
      const missing = yield* raw("POST", "/v1/webhooks/00000000-0000-4000-8000-000000000000/recover", {
        token,
        json: { since }
      })
      assert.strictEqual(missing.status, 404)
    }))
})
