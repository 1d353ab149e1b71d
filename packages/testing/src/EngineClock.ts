/**
 * The test engine's clock: a `TestClock` (the same interface, so `TestClock.adjust` and `TestClock.setTime` work on
 * it) that also lists its sleepers, which Advance.ts reads to know when the engine is quiet and what is due next.
 * Effect 4's `TestClock` lists nothing, so the kit brings its own; `makeTestEngine` provides it (Advance.ts's
 * `engineClock`) unless one is in place already, and the simulator runs on one for its whole run, across crashes.
 *
 * Between two wake-ups of one move the clock runs `quiet` (Advance.ts's `settle`: the engine runs until nothing
 * changes any more), not before the first: the caller has settled the engine already. A move wakes the sleepers due
 * by its target one at a time, earliest first and, at the same instant, the one that went to sleep last first
 * (Effect 3's `TestClock` order, which the simulator's traces were recorded in), each at its own time. The clock
 * starts at 0; a sleep of no time returns at once. The sleep of an interrupted fiber is dropped at once: whether a
 * sleep began before the race that interrupted it (a dispatcher's sleep against a commit's signal) depends on the
 * database's timing on PostgreSQL, and a stale sleeper still listed made `advanceToNext` jump the clock to its time
 * in one run and not in another.
 */
import { Clock, Duration, Effect } from "effect"
import type { TestClock } from "effect/testing"
import { lowerBound } from "./simulation/Search.js"

export interface EngineClock extends TestClock.TestClock {
  /**
   * The times (epoch ms) fibers sleep until, in the order they wake. The same array while the sleepers are
   * unchanged: `settle` compares it every round, hundreds of sleepers would otherwise make a long comparison.
   */
  readonly sleeps: Effect.Effect<ReadonlyArray<number>>
}

interface Sleeper {
  readonly at: number
  readonly wake: () => void
}

/** Every engine clock made, so that the clock in context can be told to be one (and read) without a cast. */
const engineClocks = new WeakMap<Clock.Clock, EngineClock>()

/** The engine clock in context, if the clock in context is one. */
export const currentEngineClock: Effect.Effect<EngineClock | undefined> = Clock.clockWith((clock) =>
  Effect.succeed(engineClocks.get(clock))
)

/** A clock that runs `quiet` between two wake-ups of one move. */
export const makeEngineClock = (quiet: Effect.Effect<void>): EngineClock => {
  let instant = 0
  /**
   * In the order they wake: earliest first, at one instant the last to go to sleep first. Kept in order as they come
   * (a binary search and a splice) rather than searched at each wake-up and copied at each change, which was a visible
   * share of a simulation's CPU when interrupted sleeps stayed listed (docs/performance.md, Simulator).
   */
  const sleepers: Array<Sleeper> = []
  /** Their times, in the same order: what `sleeps` lists. */
  const times: Array<number> = []
  /** The list `sleeps` answers, kept until the sleepers change. */
  let listed: ReadonlyArray<number> | undefined

  /** Where a sleeper until `at` goes: after every one due before `at`, before the ones that went to sleep earlier. */
  const slot = (at: number) => lowerBound(sleepers, (sleeper) => sleeper.at < at)

  /** Takes an interrupted fiber's sleeper off the list, if it is still on it. */
  const drop = (sleeper: Sleeper) => {
    for (let i = slot(sleeper.at); i < sleepers.length && sleepers[i]!.at === sleeper.at; i++) {
      if (sleepers[i] !== sleeper) continue
      sleepers.splice(i, 1)
      times.splice(i, 1)
      listed = undefined
      return
    }
  }

  /** The sleeper due first, if it is due by `end`; taken off the list. */
  const takeDue = (end: number): Sleeper | undefined => {
    const first = sleepers[0]
    if (first === undefined || first.at > end) return undefined
    sleepers.shift()
    times.shift()
    listed = undefined
    return first
  }

  const run = (target: (now: number) => number): Effect.Effect<void> =>
    Effect.gen(function*() {
      const end = target(instant)
      // The engine is quiet until the first wake-up resumes a fiber; each resumes one (interrupted ones are gone).
      let resumed = false
      for (;;) {
        if (resumed) yield* quiet
        const next = takeDue(end)
        if (next === undefined) break
        instant = next.at
        resumed = true
        next.wake()
        yield* Effect.yieldNow
      }
      instant = end
    })

  const adjust = (duration: Duration.Input) => run((now) => now + Duration.toMillis(Duration.fromInputUnsafe(duration)))
  const nanos = () => BigInt(Math.floor(instant * 1_000_000))
  const live = Clock.Clock.defaultValue()

  const clock: EngineClock = {
    currentTimeMillisUnsafe: () => instant,
    currentTimeNanosUnsafe: nanos,
    monotonicTimeNanosUnsafe: nanos,
    currentTimeMillis: Effect.sync(() => instant),
    currentTimeNanos: Effect.sync(nanos),
    monotonicTimeNanos: Effect.sync(nanos),
    sleep: (duration) =>
      Effect.suspend(() => {
        const at = instant + Duration.toMillis(duration)
        if (!(at > instant)) return Effect.void
        return Effect.callback<void>((resume) => {
          const sleeper: Sleeper = { at, wake: () => resume(Effect.void) }
          const i = slot(at)
          sleepers.splice(i, 0, sleeper)
          times.splice(i, 0, at)
          listed = undefined
          return Effect.sync(() => drop(sleeper))
        })
      }),
    adjust,
    setTime: (time) => run(() => time),
    withLive: (effect) => Effect.provideService(effect, Clock.Clock, live),
    sleeps: Effect.sync(() => listed ??= times.slice())
  }
  engineClocks.set(clock, clock)
  return clock
}
