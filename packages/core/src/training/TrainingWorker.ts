/**
 * The training worker: moves queued items through processing on Effect's clock, woken by `TrainingSignal`
 * and by a poll; each state change is recorded with its `training.updated` event in one transaction.
 */
import { Context, DateTime, Duration, Effect, Layer, Option } from "effect"
import { encodeData, Events } from "../events/Events.js"
import { type PersistenceError } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { UrlPageId } from "../shared/Ids.js"
import { withIdStream } from "../shared/IdStreams.js"
import { Principal } from "../shared/Principal.js"
import { now } from "../shared/Timestamp.js"
import { Transactor } from "../shared/Transactor.js"
import { normalizeUrl } from "../shared/UrlNormalization.js"
import { WorkspaceRepo } from "../workspaces/WorkspaceRepo.js"
import { TrainingDataItem, UrlPage } from "./TrainingData.js"
import { TrainingProcessor } from "./TrainingProcessor.js"
import { TrainingRepo } from "./TrainingRepo.js"

import { TrainingSignal } from "./TrainingSignal.js"

/** How long a claimed item stays leased to one worker; a worker that died releases it by letting it expire. */
export const TRAINING_LEASE = Duration.minutes(5)

/**
 * The worker that moves queued items through processing, on Effect's clock. `processNext` is one step:
 * claim the oldest due item, record `processing`, run the `TrainingProcessor`, record `completed` or `failed`
 * with the discovered pages — each state change in a transaction with its `training.updated` event, attributed
 * to the system actor.
 */
export class TrainingWorker extends Context.Service<TrainingWorker>()("@support-engine/core/TrainingWorker", {
  make: Effect.gen(function*() {
    const repo = yield* TrainingRepo
    const workspaces = yield* WorkspaceRepo
    const processor = yield* TrainingProcessor
    const tx = yield* Transactor
    const ids = yield* IdGenerator
    const events = yield* Events

    const processNext: Effect.Effect<boolean, PersistenceError> = Effect.gen(function*() {
      const at = yield* now
      const claim = yield* tx.withTransaction(Effect.gen(function*() {
        const claimed = yield* repo.claimNext(at, DateTime.addDuration(at, TRAINING_LEASE))
        if (Option.isNone(claimed)) return Option.none()
        const { item, workspaceId } = claimed.value
        const workspace = yield* workspaces.findById(workspaceId)
        if (Option.isNone(workspace)) return Option.none()
        const principal = Principal.system(workspaceId, workspace.value.organization_id)
        yield* events.record("training.updated", encodeData(TrainingDataItem, item)).pipe(
          Effect.provideService(Principal, principal)
        )
        return Option.some({ item, workspaceId, principal })
      }))
      if (Option.isNone(claim)) return false
      const { item, principal, workspaceId } = claim.value
      // The processor is the host's code: if it dies, the item fails instead of the worker.
      const outcome = yield* processor.process(item).pipe(
        Effect.catchDefect((defect) => Effect.succeed({ _tag: "Failed" as const, reason: String(defect) }))
      )
      yield* tx.withTransaction(
        Effect.gen(function*() {
          // The item may have been deleted or updated while it was processed: finish on its current state.
          const current = yield* repo.findById(workspaceId, item.id)
          if (Option.isNone(current)) return
          const finishedAt = yield* now
          const done = new TrainingDataItem({
            ...current.value,
            status: outcome._tag === "Completed" ? "completed" : "failed",
            is_processed: outcome._tag === "Completed",
            updated_at: finishedAt
          })
          if (outcome._tag === "Completed") {
            const pages = yield* Effect.forEach(outcome.pages, (url) =>
              Effect.gen(function*() {
                const normalized = normalizeUrl(url)
                if (normalized === null) return Option.none()
                const page = new UrlPage({
                  id: UrlPageId.make(yield* ids.uuid),
                  training_data_id: item.id,
                  url,
                  status: "completed",
                  created_at: finishedAt,
                  updated_at: finishedAt
                })
                return Option.some({ page, normalized })
              }))
            yield* repo.replacePages(workspaceId, item.id, pages.flatMap(Option.toArray))
          }
          yield* repo.update(workspaceId, done)
          yield* events.record("training.updated", encodeData(TrainingDataItem, done))
        }).pipe(Effect.provideService(Principal, principal))
      )
      return true
    })

    /** Drains the queue, then waits for a signal or the next poll. */
    const drain = Effect.repeat(processNext, { while: (processed) => processed })

    return { processNext, drain } as const
  })
}) {
  /** The worker's service (`processNext`, `drain`) without the loop that runs it: see `layer`. */
  static readonly layerServiceWithoutDependencies = Layer.effect(this, this.make)
  static readonly layerService = this.layerServiceWithoutDependencies.pipe(Layer.provide(Events.layer))

  /**
   * The running worker: drains on start, when signalled, and every `pollInterval` (work queued by another
   * process, or a lease that expired). Stops with its scope.
   */
  static readonly layer = (options: { readonly pollInterval?: Duration.Input } = {}) =>
    Layer.effectDiscard(Effect.gen(function*() {
      const worker = yield* TrainingWorker
      const signal = yield* TrainingSignal
      const interval = options.pollInterval ?? Duration.seconds(1)
      // Subscribed before draining, so an item queued while the worker drains still wakes it.
      const step = Effect.flatMap(signal.subscribe, (woken) =>
        Effect.andThen(
          // A database hiccup must not stop training for good: log it and try again at the next wake-up.
          Effect.catchTag(
            worker.drain,
            "PersistenceError",
            (error) => Effect.logWarning("training worker step failed", error.reason)
          ),
          Effect.race(woken, Effect.sleep(interval))
        ))
      yield* step.pipe(
        Effect.forever,
        // Its ids of its own, whenever the request that woke it draws (IdStreams.ts).
        withIdStream("training-worker"),
        Effect.forkScoped
      )
    }))
}
