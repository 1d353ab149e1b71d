import { Effect, Queue } from "effect"

/** Wakes the worker when items are queued, so processing does not wait for the next poll. */
export class TrainingSignal extends Effect.Service<TrainingSignal>()("@support-engine/core/TrainingSignal", {
  effect: Effect.map(Queue.sliding<void>(1), (queue) => ({
    notify: Queue.offer(queue, undefined).pipe(Effect.asVoid),
    wait: Queue.take(queue)
  }))
}) {}
