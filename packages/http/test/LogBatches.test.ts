/**
 * JSON log lines in batches (docs/configuration.md "Logs"): the lines logged within the window reach the output in
 * one write, whatever is waiting is written when the logger's scope closes, and nothing is scheduled while nothing is
 * logged, so an idle server does not wake up for its logger.
 */
import { assert, describe, it } from "@effect/vitest"
import { batchedLines } from "@support-engine/http"
import { Deferred, Effect, Exit, Logger, Scope } from "effect"

/** Node timers (`setTimeout`) alive in this process now. */
const liveTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length

/** A logger whose batches land in `writes`, each completing `written` (the first batch's latch). */
const capture = Effect.gen(function*() {
  const writes: Array<string> = []
  const written = yield* Deferred.make<void>()
  const scope = yield* Scope.make()
  const logger = yield* Scope.provide(scope)(batchedLines((text) => {
    writes.push(text)
    Deferred.doneUnsafe(written, Exit.void)
  }, 10))
  const logging = Logger.layer([logger])
  const log = (...messages: Array<string>) =>
    Effect.forEach(messages, (message) => Effect.logInfo(message), { discard: true }).pipe(Effect.provide(logging))
  return { writes, written, scope, log }
})

const messagesOf = (batch: string) =>
  batch.trimEnd().split("\n").map((line) => (JSON.parse(line) as { readonly message: unknown }).message)

describe("JSON log lines in batches", () => {
  it.live("lines logged together are written once, after the window, as JSON lines", () =>
    Effect.gen(function*() {
      const { log, writes, written } = yield* capture
      yield* log("one", "two", "three")
      assert.deepStrictEqual(writes, [], "nothing is written before the window ends")
      yield* Deferred.await(written)
      assert.strictEqual(writes.length, 1)
      assert.isTrue(writes[0]!.endsWith("\n"))
      assert.deepStrictEqual(messagesOf(writes[0]!), ["one", "two", "three"])
    }))

  it.live("nothing is scheduled while nothing is logged: the first line sets one timer, the write clears it", () =>
    Effect.gen(function*() {
      const before = liveTimers()
      const { log, writes, written } = yield* capture
      assert.strictEqual(liveTimers(), before, "an idle logger holds no timer")
      yield* log("first")
      assert.strictEqual(liveTimers(), before + 1)
      yield* log("second", "third")
      assert.strictEqual(liveTimers(), before + 1, "later lines of the batch join the same write")
      yield* Deferred.await(written)
      assert.strictEqual(liveTimers(), before, "after the write the logger holds no timer again")
      assert.deepStrictEqual(writes.flatMap(messagesOf), ["first", "second", "third"])
    }))

  it.live("closing the scope writes the waiting lines at once and leaves no timer behind", () =>
    Effect.gen(function*() {
      const before = liveTimers()
      const { log, scope, writes } = yield* capture
      yield* log("last words")
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(writes.flatMap(messagesOf), ["last words"])
      assert.strictEqual(liveTimers(), before)
    }))

  it.live("a write that throws loses its batch, not the process, and the next batch is written", () =>
    Effect.gen(function*() {
      const writes: Array<string> = []
      let calls = 0
      const threw = yield* Deferred.make<void>()
      const next = yield* Deferred.make<void>()
      const logger = yield* batchedLines((text) => {
        calls++
        if (calls === 1) {
          Deferred.doneUnsafe(threw, Exit.void)
          throw new Error("EPIPE")
        }
        writes.push(text)
        Deferred.doneUnsafe(next, Exit.void)
      }, 10)
      const log = (message: string) => Effect.logInfo(message).pipe(Effect.provide(Logger.layer([logger])))
      yield* log("lost")
      // The first batch's write throws inside its timer; the logger takes new lines after it.
      yield* Deferred.await(threw)
      yield* log("kept")
      yield* Deferred.await(next)
      assert.strictEqual(calls, 2)
      assert.deepStrictEqual(writes.flatMap(messagesOf), ["kept"])
    }).pipe(Effect.scoped))

  it.live("a logger whose scope closed with nothing waiting writes nothing", () =>
    Effect.gen(function*() {
      const { scope, writes } = yield* capture
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(writes, [])
    }))

  it.effect("lines reach the output under the test clock too: the window is wall-clock time", () =>
    Effect.gen(function*() {
      const { log, writes, written } = yield* capture
      yield* log("under TestClock")
      yield* Deferred.await(written)
      assert.deepStrictEqual(writes.flatMap(messagesOf), ["under TestClock"])
    }))
})
