/**
 * `Tracing.fn` records frames as `Effect.fn` does: the method's call frame and definition frame point at the files
 * that call and define it, not at Tracing.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, References } from "effect"
import * as Tracing from "../src/shared/Tracing.js"

const probe = Tracing.fn("Probe.run")(function*(n: number) {
  const frame = yield* References.CurrentStackFrame
  return { doubled: n * 2, frame }
})

describe("Tracing.fn", () => {
  it.effect("the call's frame and its definition frame point at the defining file", () =>
    Effect.gen(function*() {
      const { doubled, frame } = yield* probe(2)
      assert.strictEqual(doubled, 4)
      assert.strictEqual(frame?.name, "Probe.run")
      assert.strictEqual(frame?.parent?.name, "Probe.run (definition)")
      const definition = String(frame?.parent?.stack())
      assert.include(definition, "Tracing.test.ts")
      assert.notInclude(definition, "src/shared/Tracing.ts")
      const call = String(frame?.stack())
      assert.include(call, "Tracing.test.ts")
      assert.notInclude(call, "src/shared/Tracing.ts")
    }))

  it.effect("with stack traces off (Error.stackTraceLimit 0) the frames carry no stack, as Effect.fn's do", () =>
    Effect.gen(function*() {
      const limit = Error.stackTraceLimit
      Error.stackTraceLimit = 0
      try {
        const bare = Tracing.fn("Probe.bare")(function*() {
          return yield* References.CurrentStackFrame
        })
        const frame = yield* bare()
        assert.strictEqual(frame?.name, "Probe.bare")
        assert.isUndefined(frame?.stack())
        assert.isUndefined(frame?.parent?.stack())
      } finally {
        Error.stackTraceLimit = limit
      }
    }))
})
