/**
 * Erases previous webhook secrets once their rotation grace period has ended: the signer
 * already stops using them at the end of the grace, and an expired secret should not stay at rest either. One
 * sweep when the layer starts, then one a minute, on Effect's clock; any process may run it (the statement is
 * idempotent).
 */
import { Context, Duration, Effect, Layer, Schedule } from "effect"
import { now } from "../shared/Timestamp.js"
import { WebhookRepo } from "./WebhookRepo.js"

/** How often expired previous secrets are looked for: a secret outlives its grace by at most this. */
export const PREVIOUS_SECRET_SWEEP = Duration.minutes(1)

export class PreviousSecretSweep extends Context.Service<PreviousSecretSweep>()(
  "@support-engine/core/PreviousSecretSweep",
  {
    make: Effect.gen(function*() {
      const repo = yield* WebhookRepo
      const sweep = Effect.flatMap(now, repo.erasePreviousSecrets).pipe(Effect.withSpan("PreviousSecretSweep.sweep"))
      yield* sweep.pipe(
        // A failed sweep (the database briefly away) is retried at the next tick; the loop must not end.
        Effect.catchTag(
          "PersistenceError",
          (error) => Effect.as(Effect.logWarning("Erasing expired previous webhook secrets failed", error.reason), 0)
        ),
        Effect.repeat(Schedule.spaced(PREVIOUS_SECRET_SWEEP)),
        Effect.forkScoped
      )
      return { sweep }
    })
  }
) {
  static readonly layer = Layer.effect(this, this.make)
}
