/**
 * Webhook operations of D52 through core's `Webhooks` service on each adapter: ping, recover, and `ETag`/`If-Match`
 * on webhooks. The delivery queue is driven by hand (claims and outcomes), as the dispatcher would.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  CreateWebhook,
  DeliveryOutcome,
  DeliveryQueue,
  entityTag,
  Events,
  formatTimestamp,
  HostResolver,
  ListEvents,
  ListWebhookDeliveries,
  RecoverWebhook,
  Transactor,
  UpdateWebhook,
  Webhook,
  WebhookConfig,
  Webhooks
} from "@support-engine/core"
import { DateTime, Duration, Effect, Layer, Ref } from "effect"
import { TestClock } from "effect/testing"
import { type Adapter, as, fanOutPending, makeWorkspace, provideEngine, type TestEngine } from "./Harness.js"

const tagOf = entityTag(Webhook)

/** Every name resolves to a public address; `lookups` counts the resolutions the URL policy made. */
const servicesWith = (lookups: Ref.Ref<number>) =>
  Webhooks.layerWithoutDependencies.pipe(
    Layer.provide(WebhookConfig.layer()),
    Layer.provide(Layer.succeed(HostResolver, {
      resolve: () => Effect.as(Ref.update(lookups, (n) => n + 1), [{ address: "93.184.215.14", family: 4 as const }])
    }))
  )

/** Leases everything due far into the future: the queue spans the workspaces of earlier tests. */
export const drain = Effect.flatMap(DeliveryQueue, (queue) =>
  Effect.andThen(
    fanOutPending,
    queue.claimDue({
      now: DateTime.makeUnsafe(Date.UTC(9000, 0, 1)),
      leaseUntil: DateTime.makeUnsafe(Date.UTC(9999, 0, 1)),
      claimant: "drain",
      limit: 1_000_000
    })
  ))

/** Claims as the dispatcher does: the pending fan-outs first. */
export const claimNow = Effect.flatMap(
  DeliveryQueue,
  (queue) =>
    Effect.flatMap(
      DateTime.now,
      (now) =>
        Effect.andThen(
          fanOutPending,
          queue.claimDue({ now, leaseUntil: DateTime.add(now, { seconds: 15 }), claimant: "test", limit: 100 })
        )
    )
)

export const attemptAt = (attemptedAt: DateTime.Utc, status: number) => ({
  attemptedAt,
  durationMs: 5,
  responseStatus: status,
  error: null,
  responseExcerpt: null
})

/** The engine of `adapter` with core's `Webhooks` service over it (every name resolving to a public address). */
export const provideWebhooks = (adapter: Adapter) => <A, E>(self: Effect.Effect<A, E, TestEngine | Webhooks>) =>
  Effect.gen(function*() {
    const lookups = yield* Ref.make(0)
    // A memo map of its own (v4 shares one between provides): the engine's `Webhooks` is built already.
    return yield* Effect.provide(self, servicesWith(lookups), { local: true })
  }).pipe(provideEngine(adapter))

export const webhookOpsSuite = (adapter: Adapter) =>
  describe(`Webhook operations (${adapter.name})`, () => {
    const provide = provideWebhooks(adapter)

    it.effect("ping (D52): one webhook.ping delivery to that webhook alone, not in the event log", () =>
      Effect.gen(function*() {
        yield* drain
        const { principal } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const events = yield* Events
        yield* Effect.gen(function*() {
          const target = yield* webhooks.create(
            new CreateWebhook({ url: "https://a.example/in", events: ["agent.created"] })
          )
          const everything = yield* webhooks.create(new CreateWebhook({ url: "https://b.example/in", events: ["*"] }))
          const delivery = yield* webhooks.ping(target.id)
          assert.strictEqual(delivery.event, "webhook.ping")
          assert.strictEqual(delivery.status, "pending")
          assert.strictEqual(delivery.webhook_id, target.id)
          assert.isNotNull(delivery.next_attempt_at)
          const targetLog = yield* webhooks.deliveries(target.id, new ListWebhookDeliveries({}))
          assert.deepStrictEqual(targetLog.data.map((d) => d.id), [delivery.id])
          assert.strictEqual(targetLog.meta.total, 1)
          const otherLog = yield* webhooks.deliveries(everything.id, new ListWebhookDeliveries({}))
          assert.strictEqual(otherLog.meta.total, 0, "a * subscriber does not get another webhook's ping")
          const log = yield* events.list(new ListEvents({}))
          assert.strictEqual(log.meta.total, 0, "a ping is not recorded in the event log")
          assert.strictEqual((yield* events.list(new ListEvents({ event: "webhook.ping" }))).meta.total, 0)

          const [claimed] = yield* claimNow
          assert.strictEqual(claimed!.id, delivery.id)
          assert.strictEqual(claimed!.event.event, "webhook.ping")
          assert.deepStrictEqual(claimed!.event.data, { webhook_id: target.id })
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("a deactivated webhook's ping waits, paused, until enable (D38, D52)", () =>
      Effect.gen(function*() {
        yield* drain
        const { principal } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const queue = yield* DeliveryQueue
        yield* Effect.gen(function*() {
          const webhook = yield* webhooks.create(new CreateWebhook({ url: "https://a.example/in", events: ["*"] }))
          const first = yield* webhooks.ping(webhook.id)
          const [claimed] = yield* claimNow
          assert.strictEqual(claimed!.id, first.id)
          yield* queue.complete(
            claimed!,
            attemptAt(yield* DateTime.now, 410),
            DeliveryOutcome.Gone(),
            yield* DateTime.now
          )
          assert.isFalse((yield* webhooks.get(webhook.id)).is_active)

          const paused = yield* webhooks.ping(webhook.id)
          assert.isNull(paused.next_attempt_at)
          assert.strictEqual((yield* claimNow).length, 0)
          yield* webhooks.enable(webhook.id)
          const [due] = yield* claimNow
          assert.strictEqual(due!.id, paused.id)
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("recover (D52): failed and cancelled deliveries since `since` (before `until`) are queued again", () =>
      Effect.gen(function*() {
        yield* drain
        const { principal } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const queue = yield* DeliveryQueue
        const tx = yield* Transactor
        const events = yield* Events
        yield* Effect.gen(function*() {
          const webhook = yield* webhooks.create(new CreateWebhook({ url: "https://a.example/in", events: ["*"] }))
          const start = yield* DateTime.now
          const at = (seconds: number) => DateTime.add(start, { seconds })
          // Four events a minute apart: the first fails before `since`, the second fails, the third is delivered,
          // the fourth fails; then a 410 cancels nothing more (all done).
          const outcomes = [500, 500, 200, 500]
          for (const [i, status] of outcomes.entries()) {
            yield* TestClock.adjust(Duration.minutes(1))
            yield* tx.withTransaction(events.record("agent.created", { id: `agent-${i}` }))
            const [claimed] = yield* claimNow
            const outcome = status === 200
              ? DeliveryOutcome.Delivered()
              : DeliveryOutcome.Failed({ deactivateAfter: 100 })
            yield* queue.complete(claimed!, attemptAt(yield* DateTime.now, status), outcome, yield* DateTime.now)
          }
          const result = yield* webhooks.recover(webhook.id, new RecoverWebhook({ since: at(90) }))
          assert.strictEqual(result.recovered, 2)
          assert.isNull(result.until)
          const log = yield* webhooks.deliveries(webhook.id, new ListWebhookDeliveries({}))
          assert.deepStrictEqual(log.data.map((d) => d.status), ["pending", "delivered", "pending", "failed"])
          const due = yield* claimNow
          assert.strictEqual(due.length, 2)
          assert.deepStrictEqual(due.map((c) => c.roundAttempts), [0, 0], "a fresh attempt budget")
          assert.deepStrictEqual(due.map((c) => c.attempts), [1, 1], "the attempt count goes on")
          for (const c of due) {
            yield* queue.complete(
              c,
              attemptAt(yield* DateTime.now, 500),
              DeliveryOutcome.Failed({ deactivateAfter: 100 }),
              yield* DateTime.now
            )
          }

          const ranged = yield* webhooks.recover(webhook.id, new RecoverWebhook({ since: at(0), until: at(150) }))
          assert.strictEqual(ranged.recovered, 2, "the first and second, not the fourth (created at 240 s)")
          const none = yield* webhooks.recover(webhook.id, new RecoverWebhook({ since: at(3600) }))
          assert.strictEqual(none.recovered, 0)
          const backwards = yield* Effect.flip(
            webhooks.recover(webhook.id, new RecoverWebhook({ since: at(10), until: at(10) }))
          )
          assert.strictEqual(backwards._tag, "ValidationError")
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("recover brings back the deliveries a deactivation cancelled, paused until enable", () =>
      Effect.gen(function*() {
        yield* drain
        const { principal } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const queue = yield* DeliveryQueue
        const tx = yield* Transactor
        const events = yield* Events
        yield* Effect.gen(function*() {
          const since = yield* DateTime.now
          const webhook = yield* webhooks.create(new CreateWebhook({ url: "https://a.example/in", events: ["*"] }))
          for (let i = 0; i < 3; i++) yield* tx.withTransaction(events.record("agent.created", { id: `a${i}` }))
          const [first] = yield* claimNow
          yield* queue.complete(
            first!,
            attemptAt(yield* DateTime.now, 410),
            DeliveryOutcome.Gone(),
            yield* DateTime.now
          )
          const statuses = (yield* webhooks.deliveries(webhook.id, new ListWebhookDeliveries({}))).data
            .map((d) => d.status).sort()
          assert.deepStrictEqual(statuses, ["cancelled", "cancelled", "failed"])
          const result = yield* webhooks.recover(webhook.id, new RecoverWebhook({ since }))
          assert.strictEqual(result.recovered, 3)
          const log = (yield* webhooks.deliveries(webhook.id, new ListWebhookDeliveries({}))).data
          assert.deepStrictEqual(log.map((d) => [d.status, d.next_attempt_at]), [
            ["pending", null],
            ["pending", null],
            ["pending", null]
          ])
          assert.strictEqual((yield* claimNow).length, 0, "paused while the webhook is deactivated")
          yield* webhooks.enable(webhook.id)
          assert.strictEqual((yield* claimNow).length, 3)
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("If-Match on webhook update and delete (D52): stale is 412 and changes nothing", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        yield* Effect.gen(function*() {
          const created = yield* webhooks.create(new CreateWebhook({ url: "https://a.example/in", events: ["*"] }))
          const v1 = tagOf(yield* webhooks.get(created.id))
          yield* TestClock.adjust(Duration.millis(1))
          const updated = yield* webhooks.update(created.id, new UpdateWebhook({ description: "one" }), { ifMatch: v1 })
          const v2 = tagOf(updated)
          assert.notStrictEqual(v2, v1)
          assert.strictEqual(tagOf(yield* webhooks.get(created.id)), v2)

          const stale = yield* Effect.flip(
            webhooks.update(created.id, new UpdateWebhook({ url: "https://c.example/in" }), { ifMatch: v1 })
          )
          assert.strictEqual(stale._tag, "PreconditionFailed")
          assert.deepStrictEqual(yield* webhooks.get(created.id), updated, "nothing changed")
          const staleDelete = yield* Effect.flip(webhooks.delete(created.id, { ifMatch: v1 }))
          assert.strictEqual(staleDelete._tag, "PreconditionFailed")
          assert.strictEqual((yield* webhooks.get(created.id)).id, created.id)

          const moved = yield* webhooks.update(created.id, new UpdateWebhook({ url: "https://c.example/in" }), {
            ifMatch: `"nope", ${v2}`
          })
          assert.strictEqual(moved.url, "https://c.example/in")
          yield* webhooks.delete(created.id, { ifMatch: tagOf(moved) })
          const gone = yield* Effect.flip(webhooks.get(created.id))
          assert.strictEqual(gone._tag, "NotFound")
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("a deactivation records webhook.deactivated in the log and delivers it to the other subscribers (D52)", () =>
      Effect.gen(function*() {
        yield* drain
        const { principal } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const queue = yield* DeliveryQueue
        const tx = yield* Transactor
        const events = yield* Events
        yield* Effect.gen(function*() {
          const create = (url: string, types: ReadonlyArray<"agent.created" | "webhook.deactivated" | "*">) =>
            webhooks.create(new CreateWebhook({ url, events: types }))
          const gone = yield* create("https://gone.example/in", ["agent.created"])
          const watcher = yield* create("https://watcher.example/in", ["webhook.deactivated"])
          const everything = yield* create("https://all.example/in", ["*"])
          const unrelated = yield* create("https://agents.example/in", ["agent.created"])
          yield* tx.withTransaction(events.record("agent.created", { id: "a-1" }))
          const claimed = yield* claimNow
          const toGone = claimed.find((c) => c.webhookId === gone.id)!
          const now = yield* DateTime.now
          yield* queue.complete(toGone, attemptAt(now, 410), DeliveryOutcome.Gone(), now)

          const log = yield* events.list(new ListEvents({ event: "webhook.deactivated" }))
          assert.strictEqual(log.meta.total, 1)
          const recorded = log.data[0]!
          assert.deepStrictEqual(recorded.data, {
            webhook_id: gone.id,
            url: "https://gone.example/in",
            reason: "gone",
            deactivated_at: formatTimestamp(now)
          })
          assert.deepStrictEqual({ ...recorded.actor }, { type: "system", id: null })
          const typesOf = (id: typeof gone.id) =>
            Effect.map(webhooks.deliveries(id, new ListWebhookDeliveries({})), (page) => page.data.map((d) => d.event))
          assert.deepStrictEqual(yield* typesOf(watcher.id), ["webhook.deactivated"])
          assert.deepStrictEqual(yield* typesOf(everything.id), ["webhook.deactivated", "agent.created"])
          assert.deepStrictEqual(yield* typesOf(unrelated.id), ["agent.created"])
          assert.deepStrictEqual(yield* typesOf(gone.id), ["agent.created"], "the deactivated webhook gets nothing")
          const [toWatcher] = (yield* claimNow).filter((c) => c.webhookId === watcher.id)
          assert.strictEqual(toWatcher!.event.id, recorded.id)
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("consecutive failures deactivate with reason consecutive_failures, recorded once (D38, D52)", () =>
      Effect.gen(function*() {
        yield* drain
        const { principal } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const queue = yield* DeliveryQueue
        const tx = yield* Transactor
        const events = yield* Events
        yield* Effect.gen(function*() {
          const failing = yield* webhooks.create(new CreateWebhook({ url: "https://down.example/in", events: ["*"] }))
          for (let i = 0; i < 3; i++) yield* tx.withTransaction(events.record("agent.created", { id: `a-${i}` }))
          const claimed = yield* claimNow
          for (const c of claimed) {
            const now = yield* DateTime.now
            yield* queue.complete(c, attemptAt(now, 500), DeliveryOutcome.Failed({ deactivateAfter: 2 }), now)
          }
          assert.strictEqual((yield* webhooks.get(failing.id)).deactivation_reason, "consecutive_failures")
          const log = yield* events.list(new ListEvents({ event: "webhook.deactivated" }))
          assert.deepStrictEqual(log.data.map((e) => [e.data["webhook_id"], e.data["reason"]]), [
            [failing.id, "consecutive_failures"]
          ])
        }).pipe(as(principal))
      }).pipe(provide))
  })
