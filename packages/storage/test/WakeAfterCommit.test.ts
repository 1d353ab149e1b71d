/**
 * Workers are woken after the outermost commit, not the service's own (nested) transaction: an idempotency key
 * (D52) runs the service inside its transaction, and a wake-up before that commits sent the reply worker on
 * PostgreSQL looking for a job not yet visible, so the question waited for the fallback poll (found by the
 * simulator, seed 4 on PostgreSQL: a keyed customer question never answered). Here on SQLite: the wake-up must not
 * come while the enclosing transaction is open, and must come once it commits.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  CreateTrainingData,
  ReplySignal,
  Training,
  TrainingSignal,
  Transactor,
  type WakeUp
} from "@support-engine/core"
import { Effect, type Fiber } from "effect"
import { StorageLive } from "../src/Storage.js"
import { type Adapter, as } from "./conformance/Harness.js"
import { fixture } from "./replies/Fixture.js"
import { onEngine } from "./replies/ReplySuite.js"

const adapter: Adapter = { name: "sqlite", storage: () => StorageLive("file::memory:") }

/** Whether a subscription taken before has been woken by now. */
const woken = (fiber: Fiber.Fiber<void>) =>
  Effect.andThen(Effect.yieldNow, Effect.sync(() => fiber.pollUnsafe() !== undefined))

/** Runs `write` inside an enclosing transaction, as an idempotency key does; whether `signal` woke inside, after. */
const around = <A, E, R>(signal: WakeUp, write: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const tx = yield* Transactor
    const fiber = yield* Effect.forkChild(yield* signal.subscribe)
    const inside = yield* tx.withTransaction(Effect.andThen(write, woken(fiber)))
    return { inside, after: yield* woken(fiber) }
  })

describe("wake-ups after the outermost commit (D52, D53)", () => {
  it.effect("a customer question written inside an enclosing transaction wakes the reply worker after it commits", () =>
    Effect.gen(function*() {
      const f = yield* fixture()
      const seen = yield* around(yield* ReplySignal, f.say("How long do refunds take?"))
      assert.deepStrictEqual(seen, { inside: false, after: true })
    }).pipe(onEngine(adapter)))

  it.effect("a training item written inside an enclosing transaction wakes the training worker after it commits", () =>
    Effect.gen(function*() {
      const f = yield* fixture()
      const training = yield* Training
      const seen = yield* around(
        yield* TrainingSignal,
        training.create(new CreateTrainingData({ type: "text", content: "Opening hours: nine to five." })).pipe(
          as(f.principal)
        )
      )
      assert.deepStrictEqual(seen, { inside: false, after: true })
    }).pipe(onEngine(adapter)))
})
