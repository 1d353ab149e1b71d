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
 * each at its own time; a sleeper whose fiber was interrupted stays listed until its time comes. The same seed gives
 * the same trace on either clock.
 */
import type { TestClock } from "effect"
import { Chunk, Clock, Deferred, Duration, Effect } from "effect"
import { lowerBound } from "./Search.js"

interface Sleeper {
  readonly at: number
  readonly wake: Deferred.Deferred<void>
  /** Its fiber was interrupted: waking it runs nothing. */
  abandoned: boolean
}

/**
 * A test clock that runs `quiet` between two wake-ups of one move (not before the first: the caller has settled the
 * engine already, Advance.ts).
 */
export const makeSimClock = (quiet: Effect.Effect<void>): TestClock.TestClock => {
  let instant = 0
  /**
   * In the order they wake: earliest first, at one instant the last to go to sleep first. Abandoned sleeps stay
   * until their time (a day for the engine's fallback polls), so this holds hundreds of sleepers: kept
   * in order as they come (a binary search and a splice) rather than searched at each wake-up and copied at each
   * change, which was 3% of a run's CPU (docs/performance.md, Simulator).
   */
  let sleepers: Array<Sleeper> = []
  /** Their times, in the same order: what `sleeps` lists. */
  let times: Array<number> = []
  /**
   * The list `sleeps` answers, kept until the sleepers change: `settle` compares it every round, and an unchanged
   * list is then the same object (Advance.ts), however many abandoned sleepers it holds. Between two moves the
   * sleepers only grow, so two lists are equal exactly when the sleepers are the same, in this order as in the
   * order they went to sleep (`TestClock`'s); the earliest is the smallest in either.
   */
  let listed: Chunk.Chunk<number> | undefined

  /** Where a sleeper until `at` goes: after every one due before `at`, before the ones that went to sleep earlier. */
  const slot = (at: number) => lowerBound(sleepers, (sleeper) => sleeper.at < at)

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
      // The engine is quiet until a wake-up resumes a fiber. An abandoned sleeper (a dispatcher's sleep that lost
      // its race to a commit, say) resumes none, so no settle follows it: the engine is as quiet as before. They
      // are most of a long jump's wake-ups, each a settle of several rounds (docs/performance.md, Simulator).
      let resumed = false
      for (;;) {
        if (resumed) yield* quiet
        const next = takeDue(end)
        if (next === undefined) break
        instant = next.at
        resumed = !next.abandoned
        yield* Deferred.succeed(next.wake, undefined)
        if (resumed) yield* Effect.yieldNow()
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
          const sleeper: Sleeper = { at, wake, abandoned: false }
          const i = slot(at)
          sleepers.splice(i, 0, sleeper)
          times.splice(i, 0, at)
          listed = undefined
          return Effect.onInterrupt(Deferred.await(wake), () => Effect.sync(() => sleeper.abandoned = true))
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
