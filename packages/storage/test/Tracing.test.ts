/** Tracing.fn: the body's result and failure either way; its span only while tracing is on. */
import { assert, describe, it } from "@effect/vitest"
import { Tracing } from "@support-engine/core"
import { Data, Effect, Layer, Option, Tracer } from "effect"
import { makeRunner } from "../src/Facade.js"

class Refused extends Data.TaggedError("Refused")<{ readonly n: number }> {}

/** Names the span the body runs under, or fails for odd input. */
const probe = Tracing.fn("Probe.run")(function*(n: number) {
  if (n % 2 === 1) return yield* new Refused({ n })
  const span = yield* Effect.option(Effect.currentSpan)
  return { doubled: n * 2, span: Option.map(span, (s) => s.name) }
})

describe("Tracing.fn", () => {
  it.effect("with tracing on (Effect's default) the body runs in its named span", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* Tracing.enabled)
      const result = yield* probe(2)
      assert.strictEqual(result.doubled, 4)
      assert.deepStrictEqual(result.span, Option.some("Probe.run"))
    }))

  it.effect("with tracing off the same body runs without a span", () =>
    Effect.gen(function*() {
      assert.isFalse(yield* Tracing.enabled)
      const result = yield* probe(2)
      assert.strictEqual(result.doubled, 4)
      assert.deepStrictEqual(result.span, Option.none())
    }).pipe(Effect.withTracerEnabled(false)))

  it.effect("the span's stack trace is the definition and the call site, as Effect.fn's is", () =>
    Effect.gen(function*() {
      const spans: Array<Tracer.Span> = []
      const tracer = yield* Effect.map(Effect.tracer, (inner) =>
        Tracer.make({
          span: (...args) => {
            const span = inner.span(...args)
            spans.push(span)
            return span
          },
          context: inner.context
        }))
      yield* Effect.flip(probe(3)).pipe(Effect.withTracer(tracer))
      const probeSpan = spans.find((span) => span.name === "Probe.run")
      assert.isDefined(probeSpan)
      const trace = String(probeSpan!.attributes.get("code.stacktrace"))
      const sites = trace.split("\n")
      assert.strictEqual(sites.length, 2, trace)
      for (const site of sites) assert.include(site, "Tracing.test.ts", trace)
    }))

  it.effect("a failure is the same typed error either way", () =>
    Effect.gen(function*() {
      const traced = yield* Effect.flip(probe(3))
      const untraced = yield* Effect.flip(probe(3)).pipe(Effect.withTracerEnabled(false))
      assert.strictEqual(traced._tag, "Refused")
      assert.strictEqual(untraced._tag, "Refused")
      assert.strictEqual(untraced.n, traced.n)
    }))

  it("the Promise facade runs engine calls with tracing off: a Promise host has no tracer", async () => {
    const runner = makeRunner(Layer.empty)
    try {
      assert.isFalse(await runner.run(Tracing.enabled))
      assert.deepStrictEqual((await runner.run(probe(2))).span, Option.none())
    } finally {
      await runner.dispose()
    }
  })
})
