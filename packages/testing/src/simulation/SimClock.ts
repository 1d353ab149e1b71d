/**
 * The simulator's test clock: Effect's `TestClock` (the same interface, so `TestClock.setTime`, `TestClock.sleeps`
 * and everything in Advance.ts work on it unchanged), without its real-time waits.
 *
 * Before it wakes each sleeper, `TestClock` waits until every fiber it supervises is suspended, by polling them
 * across three `setTimeout(0)`s (at least a millisecond each, idle), and forks a warning fiber on the live clock.
 * The simulator supervises no fibers, so those waits only let the engine run, at three milliseconds of idle per
 * wake-up: a fifth of a run's wall time, most of a clock jump's CPU (docs/performance.md). Here the engine runs
 * until it is quiet (`settle`, which the simulator relies on everywhere else) after each wake-up of a move that
 * resumed a fiber, before the next.
 *
 * The rest is `TestClock`'s: the clock starts at 0; a sleep of no time returns at once; a move wakes the sleepers
 * due by its target one at a time, earliest first and, at the same instant, the one that went to sleep last first,
 * each at its own time. One difference: the sleep of a fiber that was interrupted is dropped at once, where
 * `TestClock` keeps it listed until its time comes. Whether a sleep began before the race that interrupted it (a
 * dispatcher's sleep against a commit's signal) depends on the database's timing on PostgreSQL, and a stale sleeper
 * still listed made `advance to next` jump the clock to its time in one run and not in another (issue 19).
 */
import type { TestClock } from "effect"
import { Chunk, Clock, Deferred, Duration, Effect } from "effect"
import { lowerBound } from "./Search.js"

interface Sleeper {
  readonly at: number
  readonly wake: Deferred.Deferred<void>
}

/**
 * A test clock that runs `quiet` between two wake-ups of one move (not before the first: the caller has settled the
 * engine already, Advance.ts).
 */
export const makeSimClock = (quiet: Effect.Effect<void>): TestClock.TestClock => {
  let instant = 0
  /**
   * In the order they wake: earliest first, at one instant the last to go to sleep first. Kept in order as they come
   * (a binary search and a splice) rather than searched at each wake-up and copied at each change, which was 3% of
   * a run's CPU when interrupted sleeps stayed listed (docs/performance.md, Simulator).
   */
  let sleepers: Array<Sleeper> = []
  /** Their times, in the same order: what `sleeps` lists. */
  let times: Array<number> = []
  /**
   * The list `sleeps` answers, kept until the sleepers change: `settle` compares it every round, and an unchanged
   * list is then the same object (Advance.ts). Two lists of the same times in the same order are equal in this order
   * as in the order they went to sleep (`TestClock`'s); the earliest is the smallest in either.
   */
  let listed: Chunk.Chunk<number> | undefined

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
        yield* Deferred.succeed(next.wake, undefined)
        yield* Effect.yieldNow()
      }
      instant = end
    })

  const adjust = (duration: Duration.DurationInput) => run((now) => now + Duration.toMillis(Duration.decode(duration)))

  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => instant,
    unsafeCurrentTimeNanos: () => BigInt(Math.floor(instant * 1_000_000)),
    currentTimeMillis: Effect.sync(() => instant),
    currentTimeNanos: Effect.sync(() => BigInt(instant * 1_000_000)),
    sleep: (duration) =>
      Effect.suspend(() => {
        const at = instant + Duration.toMillis(duration)
        if (!(at > instant)) return Effect.void
        return Effect.flatMap(Deferred.make<void>(), (wake) => {
          const sleeper: Sleeper = { at, wake }
          const i = slot(at)
          sleepers.splice(i, 0, sleeper)
          times.splice(i, 0, at)
          listed = undefined
          return Effect.onInterrupt(Deferred.await(wake), () => Effect.sync(() => drop(sleeper)))
        })
      }),
    adjust,
    adjustWith: (duration) => (effect) => Effect.zipLeft(effect, adjust(duration), { concurrent: true }),
    setTime: (time) => run(() => time),
    sleeps: Effect.sync(() => listed ??= Chunk.unsafeFromArray(times.slice())),
    save: Effect.sync(() => {
      const saved = { instant, sleepers: [...sleepers] }
      return Effect.sync(() => {
        instant = saved.instant
        sleepers = [...saved.sleepers]
        times = sleepers.map((s) => s.at)
        listed = undefined
      })
    })
  }
}
