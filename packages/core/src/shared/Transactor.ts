/**
 * The unit-of-work port. Multi-step writes and their outbox rows run inside one `withTransaction`,
 * so a failure in any step leaves no partial rows and no event. Storage adapters implement it.
 */
import { Context, Effect, Option } from "effect"
import type { PersistenceError } from "./Errors.js"

export class Transactor extends Context.Service<Transactor, {
  readonly withTransaction: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E | PersistenceError, R>
}>()("@support-engine/core/Transactor") {}

/**
 * Effects to run once the outermost transaction has committed (waking a worker, for example). The storage adapter
 * provides it inside its outermost transaction; core registers through `afterCommit`.
 */
export class AfterCommit extends Context.Service<AfterCommit, {
  readonly add: (effect: Effect.Effect<void>) => void
}>()("@support-engine/core/AfterCommit") {}

/**
 * Runs `effect` after the current transaction commits, or now when there is none; nothing runs on rollback. A wake-up
 * made inside a transaction that an outer one encloses (an idempotency key's) would otherwise come before the
 * outer commit, and a worker on another connection would look before the work is there.
 */
export const afterCommit = (effect: Effect.Effect<void>): Effect.Effect<void> =>
  Effect.flatMap(
    Effect.serviceOption(AfterCommit),
    Option.match({ onNone: () => effect, onSome: (hooks) => Effect.sync(() => hooks.add(effect)) })
  )
