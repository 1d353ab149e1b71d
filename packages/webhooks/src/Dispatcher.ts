/**
 * The dispatcher: a scoped fiber that claims due deliveries under a lease, sends them (at most `concurrency` at
 * once), records every attempt and schedules the next one on Effect's `Clock`. It sleeps until the earliest due
 * delivery it knows of, and wakes early when this process commits new work; a bounded fallback poll finds work other
 * processes wrote. Memory stays bounded whatever the backlog: it claims no more rows than it has free slots.
 * Closing its scope interrupts the attempts in flight, records those that had finished, and gives the leases back.
 *
 * Throughput (docs/performance.md, Webhooks): attempts that finish together are recorded together, and the same
 * transaction claims their replacements, so a busy queue costs one commit per batch rather than two per delivery.
 *
 * Fan-out: a write records its event and, when some webhook subscribes to it, a marker; before
 * each claim the loop turns the pending markers into deliveries, many events per transaction.
 *
 * Fairness: every claim asks for the webhook and workspace limits of attempts in flight, and storage
 * hands out work round-robin across workspaces and webhooks, so a slow, silent or failing receiver holds at most its
 * webhook's share of the slots and delays only its own deliveries. Each attempt is logged once recorded
 * (DeliveryLog.ts).
 */
import {
  type AttemptRecord,
  type ClaimedDelivery,
  DeliveryQueue,
  IdGenerator,
  WebhookConfig,
  withIdStream,
  type WorkspaceId
} from "@support-engine/core"
import {
  Cause,
  Clock,
  type Config,
  Context,
  DateTime,
  Duration,
  Effect,
  FiberSet,
  Layer,
  Option,
  Queue,
  Schedule
} from "effect"
import { type AttemptEnd, type FinishedAttempt, logAttempt } from "./DeliveryLog.js"
import { countAttempt } from "./DeliveryMetrics.js"
import { DnsHostResolver } from "./DnsHostResolver.js"
import { type AttemptResult, decide } from "./Rules.js"
import { signDelivery } from "./Signer.js"
import { WebhookTransport } from "./Transport.js"

/**
 * Resumes after the I/O callbacks already due have run (`setImmediate`): attempts whose answers have arrived finish
 * first and are recorded in the same write. It waits on no clock.
 */
const afterPendingIO = Effect.callback<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * How long the recorder keeps its batch open after the first attempt finishes, so that the attempts finishing with it
 * are recorded in the same transaction. By default until the I/O callbacks already due have run (`afterPendingIO`).
 *
 * The rule it sets: a 410 or a fifth failure cancels the webhook's deliveries not claimed when its batch is recorded,
 * and one claimed before is still made. So an attempt that the engine's other fibers claim while the window is open
 * (a delivery whose event committed in the same instant, say) is made, and one they claim after is cancelled. With the
 * default, which of the two happens depends on how fast the database answered those fibers, in real time: a SQLite
 * statement runs to completion before the window closes, a query to PostgreSQL may or may not be answered by then. A
 * harness that must give the same outcome on every run provides a window that closes only once every query of the
 * engine has been answered (the simulator does, on PostgreSQL), so that a batch holds what it holds on SQLite.
 */
export const AttemptBatchWindow: Context.Reference<Effect.Effect<void>> = Context.Reference<Effect.Effect<void>>(
  "@support-engine/webhooks/AttemptBatchWindow",
  { defaultValue: () => afterPendingIO }
)

/** How an attempt ended, for its log line. */
const endOf = (result: AttemptResult): AttemptEnd =>
  result._tag === "Answered"
    ? "answered"
    : result.reason === "timeout"
    ? "timeout"
    : result.reason === "refused_address"
    ? "refused"
    : "error"

/**
 * Events fanned out per transaction: up to 4,000 delivery rows at 20 webhooks each, one commit
 * that a backlog of writes shares instead of one per write; a bigger backlog takes several.
 */
export const FAN_OUT_BATCH = 200

/** The shortest sleep when work is due but none could be claimed (another process holds it): no busy loop. */
const IDLE_WHEN_CONTENDED = Duration.millis(50)

export class Dispatcher extends Context.Service<Dispatcher>()("@support-engine/webhooks/Dispatcher", {
  make: Effect.gen(function*() {
    const queue = yield* DeliveryQueue
    const transport = yield* WebhookTransport
    const config = yield* WebhookConfig
    const ids = yield* IdGenerator
    const claimant = `dispatcher-${yield* ids.uuid}`
    const batchWindow = yield* AttemptBatchWindow
    const lease = Duration.sum(config.timeout, config.leaseMargin)

    // Registered before the fibers start, so it runs after they are interrupted (finalizers run in reverse).
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(DateTime.now, (now) => queue.release(claimant, now)).pipe(
        Effect.catchTag("PersistenceError", (error) => Effect.logWarning("webhook leases not released", error))
      )
    )
    /**
     * Finished attempts wait here for the recorder. Each keeps its slot until it is recorded, so this holds at most
     * `concurrency` entries, and a dispatcher never holds more claims than that.
     */
    const finished = yield* Queue.unbounded<FinishedAttempt>()
    // Registered before the recorder and the attempts, so it runs after they stop: what finished is still recorded.
    yield* Effect.addFinalizer(() => Effect.flatMap(Queue.clear(finished), (rest) => record(rest, false)))
    const inFlight = yield* FiberSet.make<void, never>()
    const runAttempt = yield* FiberSet.runtime(inFlight)<never>()
    const slotFreed = yield* Queue.sliding<void>(1)
    /** Slots taken: attempts in flight or waiting to be recorded, and slots reserved by a claim being made. */
    let running = 0
    /** This process's attempts in flight per workspace (claimed, not yet recorded or abandoned). */
    const busy = new Map<WorkspaceId, number>()
    const track = (workspaceId: WorkspaceId, delta: number) => {
      const next = (busy.get(workspaceId) ?? 0) + delta
      if (next <= 0) busy.delete(workspaceId)
      else busy.set(workspaceId, next)
    }
    /** At its limit in this process alone, so at least as busy across every process: a claim gives it nothing. */
    const atLimit = (workspaceId: WorkspaceId) => (busy.get(workspaceId) ?? 0) >= config.maxInFlightPerWorkspace

    /** Reserves every free slot for a claim (synchronously, so two claims never share a slot). */
    const reserve = () => {
      const free = Math.max(0, config.concurrency - running)
      running += free
      return free
    }

    /** Starts the claimed deliveries in the reserved slots and gives back the slots they did not fill. */
    const start = (reserved: number, claimed: ReadonlyArray<ClaimedDelivery>) => {
      running -= reserved - claimed.length
      for (const delivery of claimed) track(delivery.workspaceId, 1)
      // Forked interruptible whatever the caller's region: closing the scope must be able to stop them.
      for (const delivery of claimed) runAttempt(Effect.interruptible(attempt(delivery)))
    }

    const leaseFrom = (now: DateTime.Utc, limit: number) => ({
      now,
      leaseUntil: DateTime.addDuration(now, lease),
      claimant,
      limit,
      perWebhook: config.maxInFlightPerWebhook,
      perWorkspace: config.maxInFlightPerWorkspace
    })

    /**
     * Records finished attempts and, in the same transaction, claims deliveries for every slot then free (the
     * slots just recorded among them), and starts them. When it could not fill them, the main loop is woken to
     * decide how long to sleep.
     */
    const record = (completions: ReadonlyArray<FinishedAttempt>, claimMore: boolean) =>
      Effect.gen(function*() {
        if (completions.length === 0) return
        const at = yield* DateTime.now
        running -= completions.length
        for (const completion of completions) track(completion.claimed.workspaceId, -1)
        const reserved = claimMore ? reserve() : 0
        const { claimed, deactivated, held } = yield* queue.completeAndClaim(completions, at, leaseFrom(at, reserved))
          .pipe(
            // Their leases expire and the deliveries are due again: a database hiccup loses no delivery.
            Effect.catchTag("PersistenceError", (error) =>
              Effect.as(Effect.logError("webhook attempts not recorded", error), {
                claimed: [],
                deactivated: [],
                held: []
              }))
          )
        start(reserved, claimed)
        const deactivatedSet = new Set(deactivated)
        for (const [i, completion] of completions.entries()) {
          const recorded = held[i] ?? false
          if (recorded) {
            yield* countAttempt(completion.outcome)
          }
          yield* logAttempt(completion, recorded, deactivatedSet)
        }
        if (claimed.length < reserved) {
          yield* Queue.offer(slotFreed, undefined)
        }
      }).pipe(
        Effect.withSpan("Dispatcher.record", { attributes: { attempts: completions.length } }, {
          captureStackTrace: false
        })
      )

    /**
     * Waits for a finished attempt, lets the attempts finishing with it finish too (`AttemptBatchWindow`), then
     * records all of them in one transaction. Only the wait can be interrupted: what was taken is recorded.
     */
    const recorder = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const first = yield* restore(Queue.take(finished))
        yield* batchWindow
        yield* record([first, ...(yield* Queue.clear(finished))], true)
      })
    )

    const freeSlot = (claimed: ClaimedDelivery) =>
      Effect.suspend(() => {
        running--
        track(claimed.workspaceId, -1)
        return Queue.offer(slotFreed, undefined)
      })

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
            onFailure: (error): AttemptResult => ({
              _tag: "NoAnswer",
              reason: error.reason,
              error: `${error.reason}: ${error.message}`
            }),
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
        yield* Queue.offer(finished, { claimed, attempt: record, outcome, end: endOf(result) })
      }).pipe(
        // A defect (a bug, not an answer): logged, and the slot freed so the dispatcher keeps its concurrency; the
        // attempt is not recorded, so the attempt and failure counts stay the receiver's, and the delivery is due
        // again when its lease ends.
        Effect.catchDefect((defect) =>
          Effect.andThen(
            Effect.logError("webhook attempt failed unexpectedly; retried when its lease ends", Cause.die(defect)),
            freeSlot(claimed)
          )
        ),
        // Stopped before it finished: nothing to record, the lease is given back on close.
        Effect.onInterrupt(() => freeSlot(claimed)),
        // A span per attempt for a host that traces; without the stack capture, the costly part of a span, so a
        // process with tracing off pays little for it.
        Effect.withSpan("webhook.attempt", {
          attributes: {
            "webhook.id": claimed.webhookId,
            "webhook.delivery.id": claimed.id,
            "webhook.event": claimed.event.event,
            "webhook.attempt": claimed.attempts + 1
          }
        }, { captureStackTrace: false })
      )

    /**
     * Makes the deliveries of the events written since the last look, a batch per transaction
     * until none is left, before any claim: the claim then sees them, and under `TestClock` a delivery exists as
     * soon as the engine has settled after its event's commit.
     */
    const fanOut = Effect.gen(function*() {
      while ((yield* queue.fanOut(FAN_OUT_BATCH)) === FAN_OUT_BATCH) {
        // A full batch: more may be waiting.
      }
    })

    /** Claims what is due into the free slots; true when every slot got work (more may be due). */
    const fill = Effect.gen(function*() {
      const reserved = reserve()
      if (reserved === 0) return false
      const now = yield* DateTime.now
      const claimed = yield* queue.claimDue(leaseFrom(now, reserved)).pipe(
        Effect.tapError(() => Effect.sync(() => start(reserved, [])))
      )
      start(reserved, claimed)
      return claimed.length === reserved
    })

    /**
     * How long to sleep: until the earliest due delivery, at most the poll interval. Due work the claim left behind
     * is held back by the in-flight limits or by another dispatcher. While this process has attempts in flight, the
     * end of each wakes it (`slotFreed`), so it sleeps until the next delivery falls due rather than polling what is
     * held back (a silent receiver at its limit would otherwise cost a claim every few milliseconds).
     */
    const idle = Effect.gen(function*() {
      if (config.concurrency - running <= 0) return config.pollInterval
      const now = yield* DateTime.now
      const next = running > 0 ? yield* queue.nextDueAfter(now) : yield* queue.nextDueAt
      return Option.match(next, {
        onNone: () => config.pollInterval,
        onSome: (due) => {
          const wait = DateTime.toEpochMillis(due) - DateTime.toEpochMillis(now)
          return wait <= 0 ? IDLE_WHEN_CONTENDED : Duration.min(Duration.millis(wait), config.pollInterval)
        }
      })
    })

    /**
     * When the last wake-up came only from new events of workspaces already at their limit in this process, the
     * claim would find nothing it did not find before: the loop goes back to sleep until the same due time, and
     * their fan-out waits for it. A busy workspace's writes then cost the dispatcher nothing, and their deliveries
     * are made many events per transaction (docs/performance.md, Fair delivery).
     */
    let nothingNew = false
    let dueAt = 0

    const step = Effect.gen(function*() {
      // Taken before looking for work, so a commit made while we look still wakes us.
      const changed = yield* queue.changes
      let wait: Duration.Duration
      if (nothingNew) {
        wait = Duration.millis(Math.max(0, dueAt - (yield* Clock.currentTimeMillis)))
      } else {
        yield* fanOut
        if (yield* fill) return
        wait = yield* idle
        dueAt = (yield* Clock.currentTimeMillis) + Duration.toMillis(wait)
      }
      const woke = yield* Effect.raceAll([
        Effect.as(changed, "changed" as const),
        Effect.as(Queue.take(slotFreed), "slot" as const),
        Effect.as(Effect.sleep(wait), "time" as const)
      ])
      const touched = yield* queue.changedWorkspaces
      nothingNew = woke === "changed" && touched !== "any" && touched.size > 0 && [...touched].every(atLimit)
    }).pipe(
      Effect.catchTag("PersistenceError", (error) =>
        Effect.andThen(
          Effect.logWarning("webhook dispatcher could not read its queue", error),
          Effect.sleep(config.pollInterval)
        ))
    )

    // Each loop draws its ids (fan-out's delivery ids, the recorder's deactivation events) from a stream of its own
    // (IdStreams.ts), so they do not depend on how the two loops and the engine's other fibers interleave.
    yield* recorder.pipe(Effect.forever, withIdStream("dispatcher-recorder"), Effect.forkScoped)
    yield* step.pipe(Effect.repeat(Schedule.forever), withIdStream("dispatcher"), Effect.forkScoped)
    return { claimant } as const
  }).pipe(withIdStream("dispatcher"))
}) {
  /** The dispatcher over a transport and settings already in context (tests swap the transport). */
  static readonly layerWithoutDependencies: Layer.Layer<
    Dispatcher,
    never,
    DeliveryQueue | IdGenerator | WebhookConfig | WebhookTransport
  > = Layer.effect(this, this.make)

  /** The dispatcher on the undici transport, the system's resolver and `SUPPORT_WEBHOOK_*`. */
  static readonly layer: Layer.Layer<Dispatcher, Config.ConfigError, DeliveryQueue | IdGenerator> = this
    .layerWithoutDependencies.pipe(
      Layer.provide(
        WebhookTransport.HttpClient.pipe(Layer.provideMerge(Layer.merge(WebhookConfig.fromEnv, DnsHostResolver)))
      )
    )
}

/** The dispatcher with configuration from the environment, for hosts: include it to deliver webhooks. */
export const DispatcherLive: Layer.Layer<Dispatcher, Config.ConfigError, DeliveryQueue | IdGenerator> = Dispatcher.layer

/** The dispatcher as a background layer (`createSupportEngine({ background: [...] })`); bad configuration dies. */
export const DispatcherBackground: Layer.Layer<never, never, DeliveryQueue | IdGenerator> = Layer.empty.pipe(
  Layer.provide(DispatcherLive),
  Layer.orDie
)
