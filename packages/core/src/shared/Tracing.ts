/**
 * Speed seam: spans that are made only while tracing is on.
 *
 * Effect's switch for tracing is the fiber ref `FiberRef.currentTracerEnabled` (on by default; a host turns it off
 * with `Layer.setTracerEnabled(false)` or `Effect.withTracerEnabled(false)`). With it off, Effect still builds a
 * no-op span for every `Effect.fn` call, captures its call site and installs the span as the parent of the body:
 * about 20 us of a service call that otherwise costs a few (docs/performance.md). Where nothing can collect a span
 * (the standalone server, the Promise facade) the engine runs with tracing off, and these calls skip that work.
 */
import { Effect, Fiber, FiberRef, Option } from "effect"
import { globalValue } from "effect/GlobalValue"
import type { YieldWrap } from "effect/Utils"

/**
 * The seam's switch, read where a service defines its methods (as its layer is built): `false` makes `fn` plain
 * `Effect.fn`, the stock part, for A/B measurements (`pnpm bench --seams`; `Layer.locallyScoped(UntracedFnSeam,
 * false)`). A fiber ref, like Effect's own tracing switch, so it reaches every layer built after it.
 */
export const UntracedFnSeam: FiberRef.FiberRef<boolean> = globalValue(
  Symbol.for("@support-engine/core/UntracedFnSeam"),
  () => FiberRef.unsafeMake(true)
)

const seamEnabled = (): boolean => {
  const fiber = Fiber.getCurrentFiber()
  return Option.isNone(fiber) || fiber.value.getFiberRef(UntracedFnSeam)
}

/** Whether the current fiber traces. */
export const enabled: Effect.Effect<boolean> = FiberRef.get(FiberRef.currentTracerEnabled)

/**
 * Whether a call made now is traced: the calling fiber's setting. A call made outside any fiber (an effect built
 * ahead and run later) counts as traced, which is always correct: its span is then a no-op if tracing is off.
 */
const tracingNow = (): boolean => {
  const fiber = Fiber.getCurrentFiber()
  return Option.isNone(fiber) || fiber.value.getFiberRef(FiberRef.currentTracerEnabled)
}

/**
 * An error whose stack ends at the caller of the function calling this one. Its `stack` is only read (and
 * formatted, the costly part) if the span fails, as `Effect.fn` does.
 */
const callerSite = (): Error => {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 3
  const site = new Error()
  Error.stackTraceLimit = limit
  return site
}

/** The caller's frame of a `callerSite()` error, formatted as `Effect.fn` formats its sites. */
const frameOf = (site: Error): string => {
  const frame = (site.stack ?? "").trim().split("\n")[3]?.trim() ?? ""
  return frame.includes("(") ? frame : frame.replace(/at (.*)/, "at ($1)")
}

/**
 * `Effect.fn(name)(body)` while the caller traces, `Effect.fnUntraced(body)` otherwise: the same body and result.
 * The span is `Effect.fn`'s: named `name`, with the definition and the call site as its stack trace.
 */
export const fn =
  (name: string) =>
  <Eff extends YieldWrap<Effect.Effect<unknown, unknown, unknown>>, AEff, Args extends Array<unknown>>(
    body: (...args: Args) => Generator<Eff, AEff, never>
  ) => {
    if (!seamEnabled()) return Effect.fn(name)(body)
    const untraced = Effect.fnUntraced(body)
    const definedAt = callerSite()
    return (...args: Args): ReturnType<typeof untraced> => {
      if (!tracingNow()) return untraced(...args)
      const calledAt = callerSite()
      return Effect.withSpan(untraced(...args), name, {
        captureStackTrace: () => `${frameOf(definedAt)}\n${frameOf(calledAt)}`
      })
    }
  }
