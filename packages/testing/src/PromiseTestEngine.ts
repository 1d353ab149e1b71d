/**
 * The test engine for plain vitest (or any runner) with Promises: `createTestEngine()` builds `makeTestEngine` (on its
 * own test clock, starting at 0) with a seeded `Random`, and hands back functions that run effects on it and move
 * its clock. `dispose()` closes it (the dispatcher and worker stop, an in-memory database is gone).
 */
import { Effect, Layer, ManagedRuntime, Option, Random } from "effect"
import * as Advance from "./Advance.js"
import type { ReceivedRequest, ScriptedAnswer } from "./RecordingReceiver.js"
import { RecordingReceiver } from "./RecordingReceiver.js"
import { makeTestEngine, type TestEngine, type TestEngineOptions } from "./TestEngine.js"

export interface PromiseTestEngineOptions extends TestEngineOptions {
  /** Seed of Effect's `Random`, from which ids and secrets are drawn (default 1). */
  readonly seed?: number
}

export interface PromiseTestEngine {
  /** Runs an effect that uses the engine's services, on the test clock. */
  readonly run: <A, E>(effect: Effect.Effect<A, E, TestEngine>) => Promise<A>
  readonly settle: () => Promise<void>
  /** Moves the clock to the next wake-up; the new time, or undefined when nothing sleeps. */
  readonly advanceToNext: () => Promise<number | undefined>
  readonly advanceBy: (millis: number) => Promise<void>
  readonly script: (url: string, answers: ReadonlyArray<ScriptedAnswer>, fallback?: ScriptedAnswer) => Promise<void>
  readonly received: () => Promise<ReadonlyArray<ReceivedRequest>>
  readonly dispose: () => Promise<void>
}

export const createTestEngine = (options: PromiseTestEngineOptions = {}): PromiseTestEngine => {
  // One generator for the engine and the effects run on it, so a seed fixes every id and secret.
  const random = Layer.effect(Random.Random, Random.withSeed(Random.Random, options.seed ?? 1))
  const runtime = ManagedRuntime.make(makeTestEngine(options).pipe(Layer.provideMerge(random)))
  const run = <A, E>(effect: Effect.Effect<A, E, TestEngine>) => runtime.runPromise(effect)
  return {
    run,
    settle: () => runtime.runPromise(Advance.settle),
    advanceToNext: () => runtime.runPromise(Effect.map(Advance.advanceToNext, Option.getOrUndefined)),
    advanceBy: (millis) => runtime.runPromise(Advance.advanceBy(millis)),
    script: (url, answers, fallback) =>
      runtime.runPromise(Effect.flatMap(RecordingReceiver, (r) => r.script(url, answers, fallback))),
    received: () => runtime.runPromise(Effect.flatMap(RecordingReceiver, (r) => r.received)),
    dispose: () => runtime.dispose()
  }
}
