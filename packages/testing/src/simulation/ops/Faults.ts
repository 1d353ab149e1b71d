/**
 * Time and crashes. The clock jumps by up to ten minutes, every wake-up on the way at its own time (Advance.ts), or
 * to the next thing due. A crash kills the engine with whatever it has in flight (attempts waiting on slow or silent
 * receivers, reply jobs waiting on the model), keeps it down for up to two minutes and starts it again on the same
 * database (EngineHost.ts); the model records the downtime, during which nothing due can happen, and the replies
 * that were in flight, which are now answered only after their lease ends, so by the end of the run.
 */
import { REPLY_LEASE } from "@support-engine/core"
import { Clock, Duration, Effect, Option } from "effect"
import { advanceBy, advanceTo, nextWakeUp } from "../../Advance.js"
import type { Op } from "./Op.js"

export const clock: Op = {
  name: "clock",
  weight: 24,
  run: (_sim, rng) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const next = yield* nextWakeUp
      // The next thing due, unless that is a fallback poll a day away.
      if (Option.isSome(next) && next.value - now <= 10 * 60_000 && (yield* rng.chance(0.4))) {
        yield* advanceTo(next.value)
        return `advance to next ${next.value}`
      }
      const millis = (yield* rng.chance(0.5)) ? yield* rng.int(1, 20_000) : yield* rng.int(1, 10 * 60_000)
      yield* advanceBy(millis)
      return `advance ${millis}`
    })
}

export const crash: Op = {
  name: "crash",
  weight: 1,
  run: (sim, rng) =>
    Effect.gen(function*() {
      if (!sim.crashes || !sim.engine.durable) return undefined
      const from = yield* Clock.currentTimeMillis
      // At least a millisecond: a process takes time to start, and ids of one millisecond are ordered by one process.
      const downFor = yield* rng.int(1, 2 * 60_000)
      for (const conversation of sim.world.conversations.values()) {
        for (const ask of conversation.asks) {
          ask.deadline = "end"
          sim.world.orphans++
        }
      }
      sim.world.orphansDueAt = Math.max(sim.world.orphansDueAt, from + Duration.toMillis(REPLY_LEASE))
      sim.world.downtimes.push({ from, to: from + downFor })
      sim.world.workerFreeAt = from + downFor
      yield* sim.engine.crash(downFor)
      return `crash at ${from}, up at ${from + downFor}`
    })
}
