/**
 * A broken invariant. Checks throw it as a defect so that they read as plain code; the run loop turns it into
 * `simulation failed: ... <invariant>`. Anything else that dies is a bug of the simulator itself.
 */
import { Effect } from "effect"

export class InvariantBroken extends Error {
  constructor(readonly invariant: string, readonly detail: string) {
    super(invariant)
  }
}

/** Fails the run: `invariant` is the line printed, `detail` goes to the trace. */
export const broken = (invariant: string, detail = ""): Effect.Effect<never> =>
  Effect.die(new InvariantBroken(invariant, detail))

/** `broken` when `ok` is false. */
export const ensure = (ok: boolean, invariant: string, detail?: () => string): Effect.Effect<void> =>
  ok ? Effect.void : broken(invariant, detail?.() ?? "")
