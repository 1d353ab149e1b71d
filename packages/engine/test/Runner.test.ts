/**
 * The Promise API's runner runs engine calls with tracing off: a Promise host has no tracer. Checked at the tracer:
 * with tracing off a `Tracing.fn` body still runs under a no-op span, and nothing is handed to the tracer.
 */
import { assert, describe, it } from "@effect/vitest"
import { Tracing } from "@support-engine/core"
import { Effect, Layer, Tracer } from "effect"
import { makeRunner } from "../src/index.js"

/** Doubles its input under a span named `Probe.run`. */
const probe = Tracing.fn("Probe.run")(function*(n: number) {
  return yield* Effect.succeed(n * 2)
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

describe("makeRunner", () => {
  it("the Promise facade runs engine calls with tracing off: a Promise host has no tracer", async () => {
    const runner = makeRunner(Layer.empty)
    try {
      assert.isFalse(await runner.run(Tracing.enabled))
      const names: Array<string> = []
      const result = await runner.run(
        Effect.flatMap(recording(names), (tracer) => probe(2).pipe(Effect.withTracer(tracer)))
      )
      assert.strictEqual(result, 4)
      assert.deepStrictEqual(names, [])
    } finally {
      await runner.dispose()
    }
  })
})
