/**
 * IoScheduler.ts: on `ioScheduler`, Node gets its event loop back between batches of deferred fiber steps, so a
 * callback queued by I/O (stood in for here by `setImmediate`, which runs right after Node's socket poll) waits
 * for one batch, not for a whole chain. The default scheduler is measured beside it: the reason it is not used.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Scheduler } from "effect"
import { ioScheduler } from "../src/shared/IoScheduler.js"

/** How many times a busy fiber yields before a callback queued with `setImmediate` when it starts gets to run. */
const yieldsBeforeIo = (scheduler: Scheduler.Scheduler) =>
  Effect.gen(function*() {
    let yields = 0
    let ranAt = -1
    setImmediate(() => (ranAt = yields))
    while (ranAt < 0 && yields < 100_000) {
      yield* Effect.yieldNow()
      yields++
    }
    return ranAt
  }).pipe(Effect.withScheduler(scheduler))

describe("ioScheduler", () => {
  it.live("lets an I/O callback run after the first batch of deferred steps", () =>
    Effect.gen(function*() {
      const onIo = yield* yieldsBeforeIo(ioScheduler)
      assert.isAtLeast(onIo, 0)
      assert.isAtMost(onIo, 2)
    }))

  it.live("(Effect's default scheduler keeps it waiting for thousands of steps)", () =>
    Effect.gen(function*() {
      const onDefault = yield* yieldsBeforeIo(Scheduler.defaultScheduler)
      assert.isAtLeast(onDefault, 1_000)
    }))
})
