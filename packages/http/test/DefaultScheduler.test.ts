/**
 * Why the Node servers run requests on Effect's default scheduler: on Effect 4 it runs the fiber steps the runtime
 * defers in batches from `setImmediate`, so Node gets its event loop back between batches, and a callback queued by
 * I/O (stood in for here by `setImmediate`, which runs right after Node's socket poll) waits for one batch, not for
 * a whole chain. Effect 3's default ran them as promise microtasks, which kept sockets waiting under load; the
 * server had its own scheduler for that (IoScheduler.ts, removed with Effect 4).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

/** How many times a busy fiber yields before a callback queued with `setImmediate` when it starts gets to run. */
const yieldsBeforeIo = Effect.gen(function*() {
  let yields = 0
  let ranAt = -1
  setImmediate(() => (ranAt = yields))
  while (ranAt < 0 && yields < 100_000) {
    yield* Effect.yieldNow
    yields++
  }
  return ranAt
})

describe("Effect's default scheduler", () => {
  it.live("lets an I/O callback run after the first batch of deferred steps", () =>
    Effect.gen(function*() {
      const onIo = yield* yieldsBeforeIo
      assert.isAtLeast(onIo, 0)
      assert.isAtMost(onIo, 2)
    }))
})
