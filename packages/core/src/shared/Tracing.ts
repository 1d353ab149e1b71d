/**
 * Spans of the engine's service methods.
 *
 * On Effect 3 `fn` was a speed seam that skipped `Effect.fn`'s no-op span, call-site capture and parent span while
 * tracing was off. Effect 4's `Effect.fn` costs little enough that the stock part is used: `fn` is `Effect.fn`,
 * kept under this name so every service defines its methods the same way. A host with nothing to collect spans
 * turns tracing off with `References.TracerEnabled` (`Effect.withTracerEnabled(false)`).
 */
import { Effect, References } from "effect"

/** Whether the current fiber traces. */
export const enabled: Effect.Effect<boolean> = References.TracerEnabled

/**
 * `Effect.fn(name)`: the method's span, named `name`. It is `Effect.fn` itself, not a function calling it:
 * `Effect.fn` records the stack frame of whoever calls it as the method's definition site, which must be the
 * service's file, not this one.
 */
export const fn: (name: string) => Effect.fn.Traced = Effect.fn
