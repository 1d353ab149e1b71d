/**
 * Spans that are made only while tracing is on.
 *
 * Effect's switch for tracing is the fiber ref `FiberRef.currentTracerEnabled` (on by default; a host turns it off
 * with `Layer.setTracerEnabled(false)` or `Effect.withTracerEnabled(false)`). With it off, Effect still builds a
 * no-op span for every `Effect.fn` call, captures its call site and installs the span as the parent of the body:
 * about 20 us of a service call that otherwise costs a few (docs/performance.md). Where nothing can collect a span
 * (the standalone server, the Promise facade) the engine runs with tracing off, and these calls skip that work.
 */
import { Effect, FiberRef } from "effect"
import type { YieldWrap } from "effect/Utils"

/** Whether the current fiber traces. */
export const enabled: Effect.Effect<boolean> = FiberRef.get(FiberRef.currentTracerEnabled)

/**
 * `Effect.fn(name)(body)` with tracing on, `Effect.fnUntraced(body)` with it off: the same body, the same
 * result, and the span (with its call site) only when it can be recorded.
 */
export const fn =
  (name: string) =>
  <Eff extends YieldWrap<Effect.Effect<unknown, unknown, unknown>>, AEff, Args extends Array<unknown>>(
    body: (...args: Args) => Generator<Eff, AEff, never>
  ) => {
    const traced = Effect.fn(name)(body)
    const untraced = Effect.fnUntraced(body)
    return (...args: Args): ReturnType<typeof traced> =>
      Effect.flatMap(enabled, (on) => on ? traced(...args) : untraced(...args))
  }
