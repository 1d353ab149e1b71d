/**
 * Retention: events older than their retention, and finished deliveries older than theirs, are deleted in batches
 * of at most `PRUNE_BATCH` rows, one transaction each, so a pass never holds the database for long. Deliveries go
 * first: an event is deleted only once no delivery carries it, so the event of a pending or claimed delivery stays.
 * `Retention.pruner` runs a pass when it starts and then every `PRUNE_INTERVAL`, on Effect's clock; any number of
 * processes may run it on one database.
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Schedule } from "effect"
import { countPrunedEvents } from "../events/EventMetrics.js"
import type { PersistenceError } from "../shared/Errors.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { Transactor } from "../shared/Transactor.js"
import { RetentionConfig } from "./RetentionConfig.js"
import { RetentionStore } from "./RetentionStore.js"

/** Rows deleted per transaction at most. */
export const PRUNE_BATCH = 1_000

/** How often the pruner runs a pass after the one at its start. */
export const PRUNE_INTERVAL = Duration.hours(1)

/** What one pass deleted. */
export interface PruneCounts {
  readonly events: number
  readonly deliveries: number
  readonly attempts: number
}

export interface PruneOptions {
  /** Deletes what is older than this instead of what the retention settings say (both cut-offs). */
  readonly before?: DateTime.Utc
}

/** The moment before which rows kept `days` days are deleted at `at`; none when `days` is 0 (kept forever). */
export const cutoff = (at: DateTime.Utc, days: number): Option.Option<DateTime.Utc> =>
  days === 0 ? Option.none() : Option.some(DateTime.subtract(at, { days }))

export class Retention extends Context.Service<Retention>()("@support-engine/core/Retention", {
  make: Effect.gen(function*() {
    const store = yield* RetentionStore
    const settings = yield* RetentionConfig
    const tx = yield* Transactor

    /** Runs `batch` until it deletes fewer than a full batch, summing what each one deleted. */
    const drain = <A>(
      batch: Effect.Effect<A, PersistenceError>,
      size: (a: A) => number,
      add: (sum: A, a: A) => A,
      zero: A
    ): Effect.Effect<A, PersistenceError> =>
      Effect.gen(function*() {
        let sum = zero
        while (true) {
          const deleted = yield* tx.withTransaction(batch)
          sum = add(sum, deleted)
          if (size(deleted) < PRUNE_BATCH) return sum
        }
      })

    /** One pass: every batch due now (or before `options.before`), deliveries first. */
    const prune = Tracing.fn("Retention.prune")(
      function*(options: PruneOptions = {}): Effect.fn.Return<PruneCounts, PersistenceError> {
        const at = yield* now
        const deliveriesBefore = options.before === undefined
          ? cutoff(at, settings.deliveryDays)
          : Option.some(options.before)
        const eventsBefore = options.before === undefined ? cutoff(at, settings.eventDays) : Option.some(options.before)
        const pruned = Option.isNone(deliveriesBefore)
          ? { deliveries: 0, attempts: 0 }
          : yield* drain(
            store.pruneDeliveries(deliveriesBefore.value, PRUNE_BATCH),
            (batch) => batch.deliveries,
            (sum, batch) => ({
              deliveries: sum.deliveries + batch.deliveries,
              attempts: sum.attempts + batch.attempts
            }),
            { deliveries: 0, attempts: 0 }
          )
        const events = Option.isNone(eventsBefore)
          ? 0
          : yield* drain(store.pruneEvents(eventsBefore.value, PRUNE_BATCH), (n) => n, (a, b) => a + b, 0)
        yield* countPrunedEvents(events)
        return { events, deliveries: pruned.deliveries, attempts: pruned.attempts }
      }
    )

    return { prune, settings } as const
  })
}) {
  /** Needs `RetentionStore`, `RetentionConfig` and `Transactor`. */
  static readonly layer = Layer.effect(this, this.make)

  /**
   * The background pruner: a pass at once, then one every `PRUNE_INTERVAL`, for as long as the layer lives. A
   * failed pass (the database briefly away) is logged and the next one comes at the next tick.
   */
  static readonly pruner: Layer.Layer<never, never, Retention> = Layer.effectDiscard(
    Effect.gen(function*() {
      const retention = yield* Retention
      yield* retention.prune().pipe(
        Effect.tap((counts) =>
          counts.events + counts.deliveries > 0
            ? Effect.logInfo("Pruned old events and deliveries", counts)
            : Effect.void
        ),
        Effect.catchTag(
          "PersistenceError",
          (error) => Effect.logWarning("Pruning old events and deliveries failed", error.reason)
        ),
        Effect.repeat(Schedule.spaced(PRUNE_INTERVAL)),
        Effect.forkScoped
      )
    })
  )
}
