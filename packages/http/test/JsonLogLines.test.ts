import { assert, describe, it } from "@effect/vitest"
import { Cause, Data, Effect, FiberId, FiberRefs, HashMap, List, Logger, LogLevel, LogSpan, Redacted } from "effect"
import { jsonLogLines } from "../src/shared/JsonLogLines.js"

// The seam must write exactly the lines of Effect's jsonLogger (issue 14: a seam replaces a stock part, it does not
// change what it produces), both on its own path (plain entries) and where it hands the entry to jsonLogger.
const entry = (
  overrides: Partial<Logger.Logger.Options<unknown>> & { readonly fields?: Record<string, unknown> }
): Logger.Logger.Options<unknown> => ({
  fiberId: FiberId.make(12, 0),
  logLevel: LogLevel.Info,
  message: ["request"],
  cause: Cause.empty,
  context: FiberRefs.unsafeMake(new Map()),
  spans: List.empty(),
  annotations: HashMap.fromIterable(Object.entries(overrides.fields ?? {})),
  date: new Date(Date.UTC(2026, 10, 28, 12, 0, 0, 123)),
  ...overrides
})

class Thing extends Data.Class<{ readonly n: number }> {}

const entries: Record<string, Logger.Logger.Options<unknown>> = {
  "a request line": entry({
    fields: {
      request_id: "0b6c3c0e-6f7e-4a55-9a4c-1f2e3d4c5b6a",
      method: "GET",
      route: "/v1/customers/:id",
      status: 200,
      duration_ms: 1.234,
      workspace_id: null
    }
  }),
  "a bare string message": entry({ message: "plain" }),
  "quotes, controls and astral characters": entry({ message: ["say \"hi\"\n\t\u0000 😀"], fields: { k: "é\u2028" } }),
  "numbers JSON cannot hold": entry({ fields: { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, neg: -0 } }),
  "undefined and boolean annotations": entry({ fields: { gone: undefined, yes: true, no: false } }),
  "no annotations, at error": entry({ logLevel: LogLevel.Error }),
  "a message in parts": entry({ message: ["one", "two"] }),
  "a message object": entry({ message: { reason: "x" } }),
  "an error message": entry({ message: [new Error("boom")] }),
  "an object annotation": entry({ fields: { thing: new Thing({ n: 1 }), list: [1, 2] } }),
  "a bigint annotation": entry({ fields: { big: 10n } }),
  "a redacted annotation": entry({ fields: { secret: Redacted.make("s3cret") } }),
  "a cause": entry({ cause: Cause.fail(new Error("failed")) }),
  "spans": entry({ spans: List.make(LogSpan.make("work", 0)) }),
  "a composite fiber id": entry({ fiberId: FiberId.combine(FiberId.make(1, 0), FiberId.make(2, 0)) }),
  "no fiber": entry({ fiberId: FiberId.none })
}

describe("JSON log lines (speed seam)", () => {
  for (const [name, options] of Object.entries(entries)) {
    it(`writes jsonLogger's line for ${name}`, () => {
      assert.strictEqual(jsonLogLines.log(options), Logger.jsonLogger.log(options))
    })
  }

  it("writes a request line as one JSON object with the fields as annotations", () => {
    const line = jsonLogLines.log(entries["a request line"]!)
    assert.deepStrictEqual(JSON.parse(line), {
      message: "request",
      logLevel: "INFO",
      timestamp: "2026-11-28T12:00:00.123Z",
      annotations: {
        request_id: "0b6c3c0e-6f7e-4a55-9a4c-1f2e3d4c5b6a",
        method: "GET",
        route: "/v1/customers/:id",
        status: 200,
        duration_ms: 1.234,
        workspace_id: null
      },
      spans: {},
      fiberId: "#12"
    })
  })

  it.effect("is the logger the effect's log calls reach", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const capture = Logger.map(jsonLogLines, (line) => lines.push(line))
      yield* Effect.logInfo("hello").pipe(
        Effect.annotateLogs({ n: 1 }),
        Effect.provide(Logger.replace(Logger.defaultLogger, capture))
      )
      assert.strictEqual(lines.length, 1)
      assert.deepInclude(JSON.parse(lines[0]!), { message: "hello", annotations: { n: 1 } })
    }))
})
