/**
 * The one wake-up primitive of the background workers (the webhook dispatcher, the training worker): a broadcast
 * signal that carries no data. A worker subscribes before it looks for work, so a notification made while it looks
 * still wakes it; every subscriber taken before a `notify` wakes. Work written by other processes is found by the
 * worker's own fallback poll, not by this.
 */
import { Deferred, Effect } from "effect"

export interface WakeUp {
  /** Wakes every subscription taken before this call. */
  readonly notify: Effect.Effect<void>
  /** Subscribes: the inner effect completes at the first `notify` after the outer one ran. */
  readonly subscribe: Effect.Effect<Effect.Effect<void>>
}

export const makeWakeUp: Effect.Effect<WakeUp> = Effect.map(Deferred.make<void>(), (first) => {
  let current = first
  return {
    // Swapped synchronously, so no subscription falls between the old round and the new one.
    notify: Effect.flatMap(Deferred.make<void>(), (next) => {
      const previous = current
      current = next
      return Deferred.succeed(previous, undefined)
    }).pipe(Effect.asVoid),
    subscribe: Effect.sync(() => Deferred.await(current))
  }
})
