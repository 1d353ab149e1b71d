/**
 * Tracing.fn: the body's result and failure either way; while tracing is on, the method's span (which reaches the
 * tracer) and the stack frames of its call site and definition, as `Effect.fn` gives them; while it is off, neither:
 * no span is made and no call site recorded.
 */
import { assert, describe, it } from "@effect/vitest"
import { Tracing } from "@support-engine/core"
import { Data, Effect, Option, References, Tracer } from "effect"

class Refused extends Data.TaggedError("Refused")<{ readonly n: number }> {}

/** Names the span the body runs under and its stack frame, or fails for odd input. */
const probe = Tracing.fn("Probe.run")(function*(n: number) {
  if (n % 2 === 1) return yield* new Refused({ n })
  const span = yield* Effect.option(Effect.currentSpan)
  const frame = yield* References.CurrentStackFrame
  return { doubled: n * 2, span: Option.map(span, (s) => s.name), frame }
})

/** A tracer that records the name of every span it is asked to make. */
const recording = (names: Array<string>) =>
  Effect.map(Effect.tracer, (inner) =>
    Tracer.make({
      span: (options) => {
        names.push(options.name)
        return inner.span(options)
      },
      context: inner.context
    }))

describe("Tracing.fn", () => {
  it.effect("with tracing on (Effect's default) the body runs in its named span", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* Tracing.enabled)
      const names: Array<string> = []
      const result = yield* probe(2).pipe(Effect.withTracer(yield* recording(names)))
      assert.strictEqual(result.doubled, 4)
      assert.deepStrictEqual(result.span, Option.some("Probe.run"))
      assert.deepStrictEqual(names, ["Probe.run"])
    }))

  it.effect("with tracing off the same body runs without a span of its own or a stack frame", () =>
    Effect.gen(function*() {
      assert.isFalse(yield* Tracing.enabled)
      const names: Array<string> = []
      const result = yield* probe(2).pipe(Effect.withTracer(yield* recording(names)))
      assert.strictEqual(result.doubled, 4)
      assert.deepStrictEqual(names, [])
      assert.deepStrictEqual(result.span, Option.none())
      assert.isUndefined(result.frame)
    }).pipe(Effect.withTracerEnabled(false)))

  it.effect("the call's stack frame is the call site, under the definition, as Effect.fn's is", () =>
    Effect.gen(function*() {
      const { frame } = yield* probe(2)
      assert.isDefined(frame)
      assert.strictEqual(frame!.name, "Probe.run")
      assert.include(String(frame!.stack()), "Tracing.test.ts")
      assert.strictEqual(frame!.parent?.name, "Probe.run (definition)")
      assert.include(String(frame!.parent?.stack()), "Tracing.test.ts")
    }))

  it.effect("a failure is the same typed error either way", () =>
    Effect.gen(function*() {
      const traced = yield* Effect.flip(probe(3))
      const untraced = yield* Effect.flip(probe(3)).pipe(Effect.withTracerEnabled(false))
      assert.strictEqual(traced._tag, "Refused")
      assert.strictEqual(untraced._tag, "Refused")
      assert.strictEqual(untraced.n, traced.n)
    }))
})
