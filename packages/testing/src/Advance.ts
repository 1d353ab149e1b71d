/**
 * Moving the test clock the way the engine needs it moved. Two rules (docs/testing.md):
 * - move the clock only when the engine is quiet: every fiber that should wake is asleep on the clock. `settle`
 *   runs the engine until nothing changes any more, without moving the clock;
 * - jump to the next thing that is due (a delivery's next attempt, a slow answer, a training step), not past it, so
 *   each happens at exactly its time (a webhook's retry timetable, for instance).
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { currentEngineClock, type EngineClock, makeEngineClock } from "./EngineClock.js"

/**
 * Resumes after Node's pending I/O callbacks: the dispatcher waits on these (`setImmediate`) to batch the attempts
 * that finished together. Waits on no clock.
 */
const afterPendingIO = Effect.callback<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * Whether two answers of the clock's `sleeps` list the same times in the same order. The clock answers the same
 * array while its sleepers are unchanged (EngineClock.ts), which hundreds of sleepers would otherwise make a long
 * comparison every round.
 */
const sameSleeps = (a: ReadonlyArray<number> | undefined, b: ReadonlyArray<number>) => {
  if (a === b) return true
  if (a === undefined || a.length !== b.length) return false
  return a.every((t, i) => t === b[i])
}

/**
 * The engine clock in context. Effect 4's own `TestClock` does not list its sleepers, so moving the clock the way
 * this module does needs the kit's clock, which `makeTestEngine` provides (`engineClock`).
 */
const clock: Effect.Effect<EngineClock> = Effect.flatMap(
  currentEngineClock,
  (found) =>
    found === undefined
      ? Effect.die(new Error("settle and advance need the test engine's clock: run them on makeTestEngine's layer"))
      : Effect.succeed(found)
)

/** The times fibers sleep until, in the order they wake. */
const sleeps: Effect.Effect<ReadonlyArray<number>> = Effect.flatMap(clock, (c) => c.sleeps)

/** More rounds than any quiet engine needs; more means something spins, which `settle` reports. */
const MAX_ROUNDS = 10_000

/**
 * How `settle` decides the engine is quiet: the same sleeps for `stableRounds` rounds in a row, each round also
 * waiting `pauseMs` of real time. On SQLite every statement runs to completion synchronously, and three rounds of
 * pending I/O suffice. On PostgreSQL a query is a network round trip the clock knows nothing of: a fiber waiting on
 * one looks asleep to nobody, so rounds with a real pause let it come back before the engine is called quiet.
 */
export interface SettlePolicy {
  readonly stableRounds: number
  readonly pauseMs: number
  /**
   * Whether a query of the engine still waits for its answer (the simulator watches the engine's sockets,
   * simulation/PgTraffic.ts). A fiber waiting on a query looks asleep to nobody, so on a server database `settle`
   * calls the engine quiet only when none does, and waits a millisecond of real time per round while one does; none
   * on SQLite, whose statements complete before `settle` looks.
   */
  readonly databaseBusy?: Effect.Effect<boolean>
}

export const settlePolicy: Context.Reference<SettlePolicy> = Context.Reference<SettlePolicy>(
  "@support-engine/testing/Advance/settlePolicy",
  { defaultValue: () => ({ stableRounds: 3, pauseMs: 0 }) }
)

/**
 * Runs `self` with `settle` (and so every `advance…`) waiting for real I/O, for engines on PostgreSQL. With
 * `databaseBusy` (the simulator watches the engine's sockets), the engine is quiet only once no query of it waits for
 * an answer, however long one takes; without it, rounds with a real pause are a best effort.
 */
export const withNetworkSettle =
  (databaseBusy?: Effect.Effect<boolean>) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.provideService(
      self,
      settlePolicy,
      databaseBusy === undefined ? { stableRounds: 4, pauseMs: 8 } : { stableRounds: 3, pauseMs: 0, databaseBusy }
    )

const pause = (ms: number) =>
  Effect.callback<void>((resume) => {
    const handle = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(handle))
  })

/**
 * What an engine on a server database needs so that its runs do not depend on the server's timing, given whether a
 * query of the engine waits for its answer (the simulator watches the engine's sockets, simulation/PgTraffic.ts):
 * - `batchWindow`, the dispatcher's batch window (webhooks' `AttemptBatchWindow`, `makeTestEngine`'s
 *   `attemptBatchWindow`): after the I/O callbacks already due, and then until no query of the engine waits for its
 *   answer. Before a batch of finished attempts is recorded, the engine's other fibers do what they do at this instant,
 *   as on SQLite, whose statements complete within the default window: which attempts a 410 or a fifth failure
 *   cancels does not depend on how fast the server answers;
 * - `busy`, for `withNetworkSettle`: a query waits for its answer, or a batch window is open (the recorder in it has
 *   work to do at this instant, and waits in real time, which `settle` does not see).
 */
export const serverDatabase = (databaseBusy: Effect.Effect<boolean>): {
  readonly batchWindow: Effect.Effect<void>
  readonly busy: Effect.Effect<boolean>
} => {
  let open = 0
  const batchWindow = Effect.acquireUseRelease(
    Effect.sync(() => {
      open++
    }),
    () =>
      Effect.gen(function*() {
        yield* afterPendingIO
        while (yield* databaseBusy) {
          yield* pause(1)
          yield* afterPendingIO
        }
      }),
    () =>
      Effect.sync(() => {
        open--
      })
  )
  return { batchWindow, busy: Effect.map(databaseBusy, (busy) => busy || open > 0) }
}

/**
 * Runs the engine until it is quiet: the same fibers asleep until the same times for three rounds of yielding and
 * pending I/O in a row. The clock does not move.
 */
export const settle: Effect.Effect<void> = Effect.gen(function*() {
  const policy = yield* settlePolicy
  const testClock = yield* clock
  let previous: ReadonlyArray<number> | undefined
  let stable = 0
  for (let round = 0; round < MAX_ROUNDS; round++) {
    yield* Effect.yieldNow
    yield* afterPendingIO
    if (policy.pauseMs > 0) yield* pause(policy.pauseMs)
    yield* Effect.yieldNow
    const current = yield* testClock.sleeps
    const busy = policy.databaseBusy !== undefined && (yield* policy.databaseBusy)
    // An answer on its way comes in real time: wait a little for it rather than spin on the I/O phase.
    if (busy) yield* pause(1)
    stable = sameSleeps(previous, current) && !busy ? stable + 1 : 0
    if (stable >= policy.stableRounds) return
    previous = current
  }
  return yield* Effect.die(new Error("the engine did not settle: a fiber keeps waking without the clock moving"))
})

/** The earliest time (epoch ms) a fiber sleeps until that is later than now, if any. */
export const nextWakeUp: Effect.Effect<Option.Option<number>> = Effect.gen(function*() {
  const now = yield* Clock.currentTimeMillis
  const later = (yield* sleeps).filter((t) => t > now)
  return later.length === 0 ? Option.none() : Option.some(Math.min(...later))
})

/**
 * Settles, moves the clock to the next wake-up (the next due delivery attempt, slow answer, job or poll) and settles
 * again. Returns the new time, or none when nothing sleeps (the clock stays).
 */
export const advanceToNext: Effect.Effect<Option.Option<number>> = Effect.gen(function*() {
  yield* settle
  const next = yield* nextWakeUp
  if (Option.isSome(next)) {
    yield* (yield* clock).setTime(next.value)
    yield* settle
  }
  return next
})

/**
 * Moves the clock to `target` (epoch ms) by way of every wake-up before it, each at its own time, then settles.
 * Never moves the clock back.
 */
export const advanceTo = (target: number): Effect.Effect<void> =>
  Effect.gen(function*() {
    const testClock = yield* clock
    yield* settle
    for (;;) {
      const next = yield* nextWakeUp
      if (Option.isNone(next) || next.value > target) break
      yield* testClock.setTime(next.value)
      yield* settle
    }
    if ((yield* Clock.currentTimeMillis) < target) {
      yield* testClock.setTime(target)
      yield* settle
    }
  })

/** `advanceTo(now + millis)`. */
export const advanceBy = (millis: number): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => advanceTo(now + millis))

/**
 * The clock `settle` and the `advance…` functions move: the engine clock already in context (the simulator keeps one
 * across the engines it opens), else a new one at 0. `makeTestEngine` provides it to the engine and to whatever runs
 * on the engine's layer.
 */
export const engineClock: Layer.Layer<never> = Layer.effect(
  Clock.Clock,
  Effect.map(currentEngineClock, (found) => found ?? makeEngineClock(settle))
)
