/** Retention's rules (D56) under the TestClock: cut-offs from the settings, batches, and the hourly pruner. */
import { assert, describe, it } from "@effect/vitest"
import {
  eventsPrunedTotal,
  PersistenceError,
  PRUNE_BATCH,
  type PrunedDeliveries,
  Retention,
  RetentionConfig,
  type RetentionSettings,
  RetentionStore,
  Transactor
} from "@support-engine/core"
import { ConfigProvider, DateTime, Effect, Fiber, Layer, Metric, Queue, Ref } from "effect"
import { TestClock } from "effect/testing"

const T0 = DateTime.makeUnsafe(Date.UTC(2027, 0, 1))

interface Call {
  readonly table: "deliveries" | "events"
  readonly before: string
  readonly limit: number
}

/**
 * A store that records each call and deletes `sizes` rows in turn (then none); with `failFirst`, the first
 * call fails as a database away would.
 */
const fakeStore = (
  calls: Ref.Ref<ReadonlyArray<Call>>,
  sizes: Array<number> = [],
  failFirst = false,
  made?: Queue.Queue<Call>
) => {
  let failing = failFirst
  const next = (table: Call["table"], before: DateTime.Utc, limit: number) =>
    Effect.gen(function*() {
      const call: Call = { table, before: DateTime.formatIso(before), limit }
      yield* Ref.update(calls, (all) => [...all, call])
      if (made !== undefined) yield* Queue.offer(made, call)
      if (failing) {
        failing = false
        return yield* new PersistenceError({ reason: "database away" })
      }
      return sizes.shift() ?? 0
    })
  return Layer.succeed(
    RetentionStore,
    RetentionStore.of({
      pruneDeliveries: (before, limit) =>
        Effect.map(next("deliveries", before, limit), (n): PrunedDeliveries => ({ deliveries: n, attempts: 2 * n })),
      pruneEvents: (before, limit) => next("events", before, limit)
    })
  )
}

const transactor = Layer.succeed(Transactor, Transactor.of({ withTransaction: (self) => self }))

const retentionWith = (store: Layer.Layer<RetentionStore>, settings: Partial<RetentionSettings> = {}) =>
  Retention.layer.pipe(Layer.provide(Layer.mergeAll(store, transactor, RetentionConfig.layer(settings))))

const iso = (dt: DateTime.Utc) => DateTime.formatIso(dt)

describe("Retention (D56)", () => {
  it.effect("cut-offs: finished deliveries after 30 days, events after 90, deliveries first", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0.epochMilliseconds)
      const calls = yield* Ref.make<ReadonlyArray<Call>>([])
      const counts = yield* Effect.flatMap(Retention, (r) => r.prune()).pipe(
        Effect.provide(retentionWith(fakeStore(calls)))
      )
      assert.deepStrictEqual(counts, { events: 0, deliveries: 0, attempts: 0 })
      assert.deepStrictEqual(yield* Ref.get(calls), [
        { table: "deliveries", before: iso(DateTime.subtract(T0, { days: 30 })), limit: PRUNE_BATCH },
        { table: "events", before: iso(DateTime.subtract(T0, { days: 90 })), limit: PRUNE_BATCH }
      ])
    }))

  it.effect("0 days keeps forever: nothing of that kind is deleted", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0.epochMilliseconds)
      const calls = yield* Ref.make<ReadonlyArray<Call>>([])
      yield* Effect.flatMap(Retention, (r) => r.prune()).pipe(
        Effect.provide(retentionWith(fakeStore(calls), { eventDays: 0, deliveryDays: 7 }))
      )
      assert.deepStrictEqual((yield* Ref.get(calls)).map((c) => [c.table, c.before]), [
        ["deliveries", iso(DateTime.subtract(T0, { days: 7 }))]
      ])
    }))

  it.effect("a pass repeats full batches of 1,000 until one is short, sums what they deleted and counts the events in support_events_pruned_total (D57)", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0.epochMilliseconds)
      const calls = yield* Ref.make<ReadonlyArray<Call>>([])
      const prunedBefore = (yield* Metric.value(eventsPrunedTotal)).count
      const counts = yield* Effect.flatMap(Retention, (r) => r.prune()).pipe(
        Effect.provide(retentionWith(fakeStore(calls, [PRUNE_BATCH, 10, PRUNE_BATCH, PRUNE_BATCH, 0])))
      )
      assert.deepStrictEqual(counts, { deliveries: PRUNE_BATCH + 10, attempts: 2 * (PRUNE_BATCH + 10), events: 2000 })
      assert.strictEqual((yield* Metric.value(eventsPrunedTotal)).count - prunedBefore, 2000)
      assert.deepStrictEqual((yield* Ref.get(calls)).map((c) => c.table), [
        "deliveries",
        "deliveries",
        "events",
        "events",
        "events"
      ])
    }))

  it.effect("before replaces both cut-offs", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0.epochMilliseconds)
      const calls = yield* Ref.make<ReadonlyArray<Call>>([])
      const before = DateTime.subtract(T0, { hours: 1 })
      yield* Effect.flatMap(Retention, (r) => r.prune({ before })).pipe(
        Effect.provide(retentionWith(fakeStore(calls), { eventDays: 0, deliveryDays: 0 }))
      )
      assert.deepStrictEqual((yield* Ref.get(calls)).map((c) => [c.table, c.before]), [
        ["deliveries", iso(before)],
        ["events", iso(before)]
      ])
    }))

  it.effect("the pruner runs a pass at start and then hourly; a failed pass does not stop it", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0.epochMilliseconds)
      const calls = yield* Ref.make<ReadonlyArray<Call>>([])
      const made = yield* Queue.unbounded<Call>()
      const passes = Effect.map(Ref.get(calls), (all) => all.filter((c) => c.table === "deliveries").length)
      const fiber = yield* Effect.forkChild(
        Layer.launch(Retention.pruner.pipe(Layer.provide(retentionWith(fakeStore(calls, [], true, made)))))
      )
      assert.strictEqual((yield* Queue.take(made)).table, "deliveries", "a pass at start (it fails)")
      yield* TestClock.adjust("59 minutes")
      assert.strictEqual(yield* passes, 1)
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(yield* Queue.take(made), {
        table: "deliveries",
        before: iso(DateTime.subtract(DateTime.add(T0, { hours: 1 }), { days: 30 })),
        limit: PRUNE_BATCH
      }, "the next pass an hour later")
      assert.deepStrictEqual(yield* Queue.take(made), {
        table: "events",
        before: iso(DateTime.subtract(DateTime.add(T0, { hours: 1 }), { days: 90 })),
        limit: PRUNE_BATCH
      })
      yield* TestClock.adjust("1 hour")
      assert.strictEqual((yield* Queue.take(made)).table, "deliveries")
      assert.strictEqual(yield* passes, 3)
      yield* Fiber.interrupt(fiber)
    }))
})

const fromEnv = (env: Record<string, string>) =>
  Effect.provide(
    RetentionConfig,
    RetentionConfig.fromEnv.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))),
    { local: true }
  )

describe("RetentionConfig (D56)", () => {
  it.effect("defaults 90 days for events and 30 for deliveries; 0 and 3,650 are accepted", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* fromEnv({}), { eventDays: 90, deliveryDays: 30 })
      assert.deepStrictEqual(
        yield* fromEnv({ SUPPORT_EVENT_RETENTION_DAYS: "0", SUPPORT_DELIVERY_RETENTION_DAYS: "3650" }),
        { eventDays: 0, deliveryDays: 3650 }
      )
    }))

  it.effect("an invalid value fails naming its variable", () =>
    Effect.gen(function*() {
      for (
        const [name, value] of [
          ["SUPPORT_EVENT_RETENTION_DAYS", "3651"],
          ["SUPPORT_EVENT_RETENTION_DAYS", "-1"],
          ["SUPPORT_DELIVERY_RETENTION_DAYS", "1.5"],
          ["SUPPORT_DELIVERY_RETENTION_DAYS", "month"]
        ] as const
      ) {
        const error = yield* Effect.flip(fromEnv({ [name]: value }))
        assert.include(error.message, name, `${name}=${value}`)
        assert.strictEqual(error.cause._tag, "SchemaError")
      }
    }))
})
