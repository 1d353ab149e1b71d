/** The subscriptions service (D36, D46): CRUD, secrets, abilities (D10), workspace scope (D11), the delivery log. */
import { assert, describe, it } from "@effect/vitest"
import {
  CreateWebhook,
  DeliveryId,
  ListWebhookDeliveries,
  ListWebhooks,
  type Principal,
  type PrincipalShape,
  RotateWebhookSecret,
  UpdateWebhook,
  WebhookId,
  Webhooks
} from "@support-engine/core"
import { DateTime, Duration, Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { answer, as, fanOut, makeWorkspace, record, scriptedTransport, servicesLayer, subscribe } from "./Harness.js"

const provide = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const transport = yield* scriptedTransport(() => answer(200))
    return yield* self.pipe(Effect.provide(servicesLayer(transport.layer)))
  })

const reader = (principal: PrincipalShape): PrincipalShape => ({ ...principal, abilities: ["external-api:read"] })

describe("Webhooks service (D36)", () => {
  it.effect("create returns the secret once: whsec_ + base64 of 32 random bytes; reads never show it", () =>
    provide(Effect.gen(function*() {
      const { principal } = yield* makeWorkspace()
      const webhooks = yield* Webhooks
      yield* Effect.gen(function*() {
        const created = yield* webhooks.create(
          new CreateWebhook({ url: "https://hooks.example.com/in", events: ["customer.created"], description: "CRM" })
        )
        const secret = Redacted.value(created.secret)
        assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
        assert.strictEqual(Buffer.from(secret.slice(6), "base64").length, 32)
        assert.deepInclude({ ...created }, {
          url: "https://hooks.example.com/in",
          events: ["customer.created"],
          description: "CRM",
          is_active: true,
          consecutive_failures: 0,
          deactivated_at: null,
          deactivation_reason: null,
          previous_secret_expires_at: null
        })
        const read = yield* webhooks.get(created.id)
        assert.notProperty(read, "secret")
        assert.deepStrictEqual(read.id, created.id)
        const other = yield* webhooks.create(new CreateWebhook({ url: "https://hooks.example.com/2", events: ["*"] }))
        assert.notStrictEqual(Redacted.value(other.secret), secret)
      }).pipe(as(principal))
    })))

  it.effect("events are stored as a set; * alone covers everything", () =>
    provide(Effect.gen(function*() {
      const { principal } = yield* makeWorkspace()
      const webhooks = yield* Webhooks
      yield* Effect.gen(function*() {
        const dup = yield* webhooks.create(
          new CreateWebhook({ url: "https://hooks.example.com/in", events: ["agent.created", "agent.created"] })
        )
        assert.deepStrictEqual(dup.events, ["agent.created"])
        const star = yield* webhooks.create(
          new CreateWebhook({ url: "https://hooks.example.com/in", events: ["agent.created", "*"] })
        )
        assert.deepStrictEqual(star.events, ["*"])
      }).pipe(as(principal))
    })))

  it.effect("lists newest first with totals; update changes present fields only (D22); delete (D21)", () =>
    provide(Effect.gen(function*() {
      const { principal } = yield* makeWorkspace()
      const webhooks = yield* Webhooks
      yield* Effect.gen(function*() {
        const first = yield* subscribe(["agent.created"])
        yield* TestClock.adjust(Duration.millis(5))
        const second = yield* subscribe()
        const page = yield* webhooks.list(new ListWebhooks({ per_page: 1 }))
        assert.strictEqual(page.meta.total, 2)
        assert.strictEqual(page.meta.last_page, 2)
        assert.deepStrictEqual(page.data.map((w) => w.id), [second.id])

        yield* TestClock.adjust(Duration.seconds(1))
        const updated = yield* webhooks.update(first.id, new UpdateWebhook({ description: "new", events: ["*"] }))
        assert.strictEqual(updated.url, first.url)
        assert.strictEqual(updated.description, "new")
        assert.deepStrictEqual(updated.events, ["*"])
        assert.deepStrictEqual(updated.updated_at, DateTime.makeUnsafe(1005))
        assert.deepStrictEqual(yield* webhooks.get(first.id), updated)
        const cleared = yield* webhooks.update(first.id, new UpdateWebhook({ description: null }))
        assert.isNull(cleared.description)
        const same = yield* webhooks.update(first.id, new UpdateWebhook({ events: ["*"] }))
        assert.deepStrictEqual(same, cleared, "a no-op update writes nothing")

        yield* webhooks.delete(first.id)
        assert.strictEqual((yield* Effect.flip(webhooks.get(first.id)))._tag, "NotFound")
        assert.strictEqual((yield* Effect.flip(webhooks.delete(first.id)))._tag, "NotFound")
        assert.strictEqual((yield* webhooks.list(new ListWebhooks({}))).meta.total, 1)
      }).pipe(as(principal))
    })))

  it.effect("rotate-secret: a new secret, the old one valid for 24 hours by default, or as asked (D46)", () =>
    provide(Effect.gen(function*() {
      const { principal } = yield* makeWorkspace()
      const webhooks = yield* Webhooks
      yield* Effect.gen(function*() {
        const created = yield* subscribe()
        const rotated = yield* webhooks.rotateSecret(created.id, new RotateWebhookSecret({}))
        assert.notStrictEqual(Redacted.value(rotated.secret), Redacted.value(created.secret))
        assert.deepStrictEqual(rotated.previous_secret_expires_at, DateTime.makeUnsafe(24 * 3_600_000))
        const week = yield* webhooks.rotateSecret(
          created.id,
          new RotateWebhookSecret({ grace_period_seconds: 7 * 24 * 3600 })
        )
        assert.deepStrictEqual(week.previous_secret_expires_at, DateTime.makeUnsafe(7 * 24 * 3_600_000))
        const now = yield* webhooks.rotateSecret(created.id, new RotateWebhookSecret({ grace_period_seconds: 0 }))
        assert.isNull(now.previous_secret_expires_at)
        assert.notProperty(yield* webhooks.get(created.id), "secret")
      }).pipe(as(principal))
    })))

  it.effect("the delivery log: newest first, filtered by status; redeliver of an unknown delivery is 404", () =>
    provide(Effect.gen(function*() {
      const { principal } = yield* makeWorkspace()
      const webhooks = yield* Webhooks
      yield* Effect.gen(function*() {
        const webhook = yield* subscribe()
        const other = yield* subscribe()
        yield* record("agent.deleted", { id: "1" })
        yield* TestClock.adjust(Duration.millis(1))
        yield* record("agent.created", { id: "2" })
        // No dispatcher here: the fan-out step it would run (issue 16 item 2).
        yield* fanOut
        const log = yield* webhooks.deliveries(webhook.id, new ListWebhookDeliveries({}))
        assert.strictEqual(log.meta.total, 2)
        assert.deepStrictEqual(log.data.map((d) => d.event), ["agent.created", "agent.deleted"])
        assert.isTrue(log.data.every((d) => d.status === "pending" && d.webhook_id === webhook.id))
        const delivered = yield* webhooks.deliveries(webhook.id, new ListWebhookDeliveries({ status: "delivered" }))
        assert.strictEqual(delivered.meta.total, 0)

        const elsewhere = yield* Effect.flip(webhooks.redeliver(other.id, log.data[0]!.id))
        assert.strictEqual(elsewhere._tag, "NotFound")
        assert.strictEqual(elsewhere.message, "Delivery not found.")
        const unknown = yield* Effect.flip(
          webhooks.redeliver(webhook.id, DeliveryId.make("0190a7e2-7c1e-7a3b-9c4d-5e6f70819203"))
        )
        assert.strictEqual(unknown._tag, "NotFound")
        const missing = yield* Effect.flip(
          webhooks.deliveries(WebhookId.make("0190a7e2-7c1e-7a3b-9c4d-5e6f70819203"), new ListWebhookDeliveries({}))
        )
        assert.strictEqual(missing.message, "Webhook not found.")
      }).pipe(as(principal))
    })))

  it.effect("read tokens read; every change needs write (D10)", () =>
    provide(Effect.gen(function*() {
      const { principal } = yield* makeWorkspace()
      const webhooks = yield* Webhooks
      const webhook = yield* subscribe().pipe(as(principal))
      yield* record("agent.deleted", { id: "1" }).pipe(as(principal))
      yield* fanOut
      const [delivery] =
        (yield* webhooks.deliveries(webhook.id, new ListWebhookDeliveries({})).pipe(as(principal))).data
      yield* Effect.gen(function*() {
        yield* webhooks.get(webhook.id)
        yield* webhooks.list(new ListWebhooks({}))
        yield* webhooks.deliveries(webhook.id, new ListWebhookDeliveries({}))
        const writes: ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string }, Principal>> = [
          webhooks.create(new CreateWebhook({ url: "https://hooks.example.com/in", events: ["*"] })),
          webhooks.update(webhook.id, new UpdateWebhook({ description: "x" })),
          webhooks.delete(webhook.id),
          webhooks.rotateSecret(webhook.id, new RotateWebhookSecret({})),
          webhooks.enable(webhook.id),
          webhooks.redeliver(webhook.id, delivery!.id)
        ]
        for (const write of writes) {
          const denied = yield* Effect.flip(write)
          assert.strictEqual(denied._tag, "InsufficientAbility")
        }
      }).pipe(as(reader(principal)))
      const none = { ...principal, abilities: [] }
      assert.strictEqual((yield* Effect.flip(webhooks.get(webhook.id).pipe(as(none))))._tag, "InsufficientAbility")
    })))

  it.effect("another workspace's webhook is not found for every operation (D11)", () =>
    provide(Effect.gen(function*() {
      const mine = yield* makeWorkspace()
      const theirs = yield* makeWorkspace("Other")
      const webhooks = yield* Webhooks
      const webhook = yield* subscribe().pipe(as(mine.principal))
      yield* record("agent.deleted", { id: "1" }).pipe(as(mine.principal))
      yield* fanOut
      const [delivery] =
        (yield* webhooks.deliveries(webhook.id, new ListWebhookDeliveries({})).pipe(as(mine.principal))).data
      yield* Effect.gen(function*() {
        const attempts: ReadonlyArray<
          Effect.Effect<unknown, { readonly _tag: string; readonly message: string }, Principal>
        > = [
          webhooks.get(webhook.id),
          webhooks.update(webhook.id, new UpdateWebhook({ description: "x" })),
          webhooks.delete(webhook.id),
          webhooks.rotateSecret(webhook.id, new RotateWebhookSecret({})),
          webhooks.enable(webhook.id),
          webhooks.deliveries(webhook.id, new ListWebhookDeliveries({})),
          webhooks.redeliver(webhook.id, delivery!.id)
        ]
        for (const attempt of attempts) {
          const error = yield* Effect.flip(attempt)
          assert.strictEqual(error._tag, "NotFound")
          assert.strictEqual(error.message, "Webhook not found.")
        }
        assert.strictEqual((yield* webhooks.list(new ListWebhooks({}))).meta.total, 0)
      }).pipe(as(theirs.principal))
      assert.strictEqual((yield* webhooks.get(webhook.id).pipe(as(mine.principal))).description, null)
    })))
})
