/**
 * Retention (D56) on the adapter's database: batches of at most the limit, pending and claimed deliveries kept with
 * their events, events still to be fanned out kept, list totals exact afterwards, `after` from a pruned event, and
 * two pruners side by side deleting each row once.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  CreateWebhook,
  DeliveryOutcome,
  DeliveryQueue,
  EventId,
  Events,
  ListEvents,
  ListWebhookDeliveries,
  type Principal,
  Retention,
  RetentionConfig,
  RetentionStore,
  Transactor,
  uuidV7,
  Webhooks
} from "@support-engine/core"
import { DateTime, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { type Adapter, as, fanOutPending, makeWorkspace, type TestEngine } from "./Harness.js"
import { attemptAt, claimNow, drain, provideWebhooks } from "./WebhookOpsSuite.js"

/** Far after anything other suites wrote, so a test first prunes everything before it and counts only its own rows. */
const T0 = DateTime.makeUnsafe(Date.UTC(2100, 0, 1))
const days = (n: number) => DateTime.add(T0, { days: n })

const withRetention = Effect.provide(Retention.layer.pipe(Layer.provide(RetentionConfig.layer())))

/** Everything other tests left before `T0` is pruned, so the counts a test asserts are its own. */
const clearBefore = Effect.flatMap(Retention, (retention) => retention.prune({ before: T0 }))

const record = (id: string) =>
  Effect.flatMap(
    Effect.all([Transactor, Events]),
    ([tx, events]) => tx.withTransaction(events.record("agent.created", { id }))
  )

/** Runs `batch` until it deletes nothing, summing. */
const untilEmpty = (batch: Effect.Effect<number, unknown>): Effect.Effect<number, unknown> =>
  Effect.flatMap(batch, (n) => n === 0 ? Effect.succeed(0) : Effect.map(untilEmpty(batch), (rest) => rest + n))

export const retentionSuite = (adapter: Adapter) =>
  describe(`Retention (${adapter.name})`, () => {
    const provide = provideWebhooks(adapter)
    /**
     * A test's `body`, run as a new workspace's principal with the clock at `T0`, after the deliveries and events
     * other tests left are drained and pruned.
     */
    const retentionTest = <A, E>(body: Effect.Effect<A, E, TestEngine | Webhooks | Retention | Principal>) =>
      Effect.gen(function*() {
        yield* drain
        yield* clearBefore
        const { principal } = yield* makeWorkspace()
        yield* TestClock.setTime(T0.epochMilliseconds)
        return yield* body.pipe(as(principal))
      }).pipe(withRetention, provide)

    it.effect("D56: events go in batches of at most the limit; totals stay exact; after= a pruned id still lists", () =>
      retentionTest(Effect.gen(function*() {
        const store = yield* RetentionStore
        const tx = yield* Transactor
        const events = yield* Events
        const old: Array<EventId> = []
        for (const id of ["1", "2", "3"]) {
          old.push((yield* record(id)).id)
          yield* TestClock.adjust("1 second")
        }
        yield* TestClock.setTime(days(10).epochMilliseconds)
        const kept = [(yield* record("4")).id, (yield* record("5")).id]

        const batch = tx.withTransaction(store.pruneEvents(days(1), 2))
        assert.deepStrictEqual([yield* batch, yield* batch, yield* batch], [2, 1, 0])

        const page = yield* events.list(new ListEvents({}))
        assert.deepStrictEqual(page.data.map((e) => e.id), [...kept].reverse())
        assert.strictEqual(page.meta.total, 2, "the unfiltered total (a kept counter) is exact")
        assert.strictEqual((yield* events.list(new ListEvents({ event: "agent.created" }))).meta.total, 2)

        const after = (id: EventId) =>
          Effect.map(events.list(new ListEvents({ after: id })), (p) => p.data.map((e) => e.id))
        assert.deepStrictEqual(yield* after(old[0]!), kept, "after the oldest pruned event")
        assert.deepStrictEqual(yield* after(old[2]!), kept, "after the newest pruned event")
        assert.deepStrictEqual(yield* after(kept[0]!), [kept[1]])
        // An id newer than every pruned event that was never recorded is still unknown.
        const never = EventId.make(uuidV7(days(5).epochMilliseconds, new Uint8Array(10)))
        assert.strictEqual((yield* Effect.flip(after(never)))._tag, "NotFound")
      })))

    it.effect("D56: finished deliveries and their attempts go; pending and claimed ones stay with their events", () =>
      retentionTest(Effect.gen(function*() {
        const webhooks = yield* Webhooks
        const queue = yield* DeliveryQueue
        const events = yield* Events
        const retention = yield* Retention
        const webhook = yield* webhooks.create(new CreateWebhook({ url: "https://a.example/in", events: ["*"] }))
        yield* record("delivered")
        const [delivered] = yield* claimNow
        assert.isTrue(yield* queue.complete(delivered!, attemptAt(T0, 200), DeliveryOutcome.Delivered(), T0))
        yield* record("failed")
        const [failed] = yield* claimNow
        yield* queue.complete(failed!, attemptAt(T0, 500), DeliveryOutcome.Failed({ deactivateAfter: 100 }), T0)
        const claimedEvent = yield* record("claimed")
        const [claimed] = yield* claimNow
        const pendingEvent = yield* record("pending")
        assert.strictEqual(yield* fanOutPending, 1)
        const unfannedEvent = yield* record("not fanned out yet")

        yield* TestClock.setTime(days(40).epochMilliseconds)
        const counts = yield* retention.prune({ before: days(1) })
        assert.deepStrictEqual(counts, { events: 2, deliveries: 2, attempts: 2 })

        const left = (yield* webhooks.deliveries(webhook.id, new ListWebhookDeliveries({}))).data
        assert.deepStrictEqual(
          left.map((d) => [d.event_id, d.status]).sort(),
          [[claimedEvent.id, "pending"], [pendingEvent.id, "pending"]].sort()
        )
        assert.strictEqual(left.find((d) => d.event_id === claimedEvent.id)!.id, claimed!.id)
        const page = yield* events.list(new ListEvents({}))
        assert.deepStrictEqual(
          page.data.map((e) => e.id),
          [unfannedEvent.id, pendingEvent.id, claimedEvent.id]
        )
        assert.strictEqual(page.meta.total, 3)
        assert.deepStrictEqual(
          yield* retention.prune({ before: days(1) }),
          { events: 0, deliveries: 0, attempts: 0 },
          "a second pass finds nothing"
        )
      })))

    it.effect("D56: two pruners side by side delete every row once and keep the total exact", () =>
      retentionTest(Effect.gen(function*() {
        const store = yield* RetentionStore
        const tx = yield* Transactor
        const events = yield* Events
        for (let i = 0; i < 30; i++) yield* record(String(i))
        yield* TestClock.setTime(days(10).epochMilliseconds)
        const pruner = untilEmpty(tx.withTransaction(store.pruneEvents(days(1), 7)))
        const [a, b] = yield* Effect.all([pruner, pruner], { concurrency: 2 })
        assert.strictEqual(a + b, 30)
        assert.strictEqual((yield* events.list(new ListEvents({}))).meta.total, 0)
      })))
  })
