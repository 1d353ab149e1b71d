/**
 * The dispatcher (D38): a scoped fiber that claims due deliveries under a lease, sends them (at most `concurrency` at
 * once), records every attempt and schedules the next one on Effect's `Clock`. It sleeps until the earliest due
 * delivery it knows of, and wakes early when this process commits new work; a bounded fallback poll finds work other
 * processes wrote. Memory stays bounded whatever the backlog: it claims no more rows than it has free slots.
 * Closing its scope interrupts the attempts in flight and gives their leases back.
 */
import { IdGenerator } from "@support-engine/core/IdGenerator"
import { type AttemptRecord, type ClaimedDelivery, DeliveryQueue } from "@support-engine/core/WebhookRepo"
import { type ConfigError, DateTime, Duration, Effect, FiberSet, Layer, Option, Queue, Schedule } from "effect"
import { type AttemptResult, decide } from "./Rules.js"
import { signDelivery } from "./Signer.js"
import { WebhookTransport } from "./Transport.js"
import { HostResolver } from "./UrlPolicy.js"
import { WebhookConfig } from "./WebhookConfig.js"

/** The shortest sleep when work is due but none could be claimed (another process holds it): no busy loop. */
const IDLE_WHEN_CONTENDED = Duration.millis(50)

export class Dispatcher extends Effect.Service<Dispatcher>()("@support-engine/webhooks/Dispatcher", {
  scoped: Effect.gen(function*() {
    const queue = yield* DeliveryQueue
    const transport = yield* WebhookTransport
    const config = yield* WebhookConfig
    const ids = yield* IdGenerator
    const claimant = `dispatcher-${yield* ids.uuid}`
    const lease = Duration.sum(config.timeout, config.leaseMargin)

    // Registered before the fibers start, so it runs after they are interrupted (finalizers run in reverse).
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(DateTime.now, (now) => queue.release(claimant, now)).pipe(
        Effect.catchTag("PersistenceError", (error) => Effect.logWarning("webhook leases not released", error))
      )
    )
    const inFlight = yield* FiberSet.make<void, never>()
    const slotFreed = yield* Queue.sliding<void>(1)
    let running = 0

    const attempt = (claimed: ClaimedDelivery) =>
      Effect.gen(function*() {
        const attemptedAt = yield* DateTime.now
        const signed = signDelivery(
          { deliveryId: claimed.id, organizationId: claimed.organizationId, event: claimed.event },
          claimed.secrets,
          attemptedAt
        )
        const result: AttemptResult = yield* transport.send({ url: claimed.url, ...signed }).pipe(
          Effect.match({
            onFailure: (error): AttemptResult => ({ _tag: "NoAnswer", error: `${error.reason}: ${error.message}` }),
            onSuccess: (response): AttemptResult => ({ _tag: "Answered", ...response })
          })
        )
        const finishedAt = yield* DateTime.now
        const record: AttemptRecord = {
          attemptedAt,
          durationMs: DateTime.toEpochMillis(finishedAt) - DateTime.toEpochMillis(attemptedAt),
          responseStatus: result._tag === "Answered" ? result.status : null,
          error: result._tag === "NoAnswer" ? result.error : null,
          responseExcerpt: result._tag === "Answered" ? result.excerpt : null
        }
        const outcome = decide(result, claimed.roundAttempts + 1, config, finishedAt)
        yield* queue.complete(claimed, record, outcome, finishedAt)
      }).pipe(
        // The lease expires and the delivery is due again: a database hiccup loses no delivery.
        Effect.catchTag("PersistenceError", (error) => Effect.logError("webhook attempt not recorded", error)),
        Effect.ensuring(Effect.zipRight(Effect.sync(() => running--), slotFreed.offer(undefined))),
        Effect.withSpan("Dispatcher.attempt", { attributes: { delivery: claimed.id } })
      )

    /** Claims what is due into the free slots; true when every slot got work (more may be due). */
    const fill = Effect.gen(function*() {
      const free = config.concurrency - running
      if (free <= 0) return false
      const now = yield* DateTime.now
      const claimed = yield* queue.claimDue({
        now,
        leaseUntil: DateTime.addDuration(now, lease),
        claimant,
        limit: free
      })
      for (const delivery of claimed) {
        running++
        yield* FiberSet.run(inFlight, attempt(delivery))
      }
      return claimed.length === free
    })

    /** How long to sleep: until the earliest due delivery, at most the poll interval. */
    const idle = Effect.gen(function*() {
      if (config.concurrency - running <= 0) return config.pollInterval
      const next = yield* queue.nextDueAt
      const now = yield* DateTime.now
      return Option.match(next, {
        onNone: () => config.pollInterval,
        onSome: (due) => {
          const wait = DateTime.toEpochMillis(due) - DateTime.toEpochMillis(now)
          return wait <= 0 ? IDLE_WHEN_CONTENDED : Duration.min(Duration.millis(wait), config.pollInterval)
        }
      })
    })

    const step = Effect.gen(function*() {
      // Taken before looking for work, so a commit made while we look still wakes us.
      const changed = yield* queue.changes
      if (yield* fill) return
      const wait = yield* idle
      yield* Effect.raceAll([changed, slotFreed.take, Effect.sleep(wait)])
    }).pipe(
      Effect.catchTag("PersistenceError", (error) =>
        Effect.zipRight(
          Effect.logWarning("webhook dispatcher could not read its queue", error),
          Effect.sleep(config.pollInterval)
        ))
    )

    yield* step.pipe(Effect.repeat(Schedule.forever), Effect.forkScoped)
    return { claimant } as const
  }),
  dependencies: [
    WebhookTransport.Undici.pipe(Layer.provideMerge(Layer.merge(WebhookConfig.fromEnv, HostResolver.System)))
  ]
}) {}

/** The dispatcher with configuration from the environment (D41), for hosts: include it to deliver webhooks. */
export const DispatcherLive: Layer.Layer<Dispatcher, ConfigError.ConfigError, DeliveryQueue | IdGenerator> =
  Dispatcher.Default

/** The dispatcher as a background layer (`createSupportEngine({ background: [...] })`); bad configuration dies. */
export const DispatcherBackground: Layer.Layer<never, never, DeliveryQueue | IdGenerator> = Layer.empty.pipe(
  Layer.provide(DispatcherLive),
  Layer.orDie
)
