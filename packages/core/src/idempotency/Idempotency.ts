/**
 * Idempotent retries (like Stripe's `Idempotency-Key`): the first request with a key runs, and its outcome is
 * recorded under the key in the same transaction as its writes, so a crash leaves both or neither. A retry with
 * the same key and the same request gets the recorded outcome without running again; the same key with another
 * request is `IdempotencyKeyReused` (422); a retry while the first still runs is `IdempotencyKeyInUse` (409).
 *
 * Only successful outcomes are recorded. A request that fails changed nothing (its transaction rolls back, the
 * key's claim with it), so its retry simply runs again. Keys are per workspace and kept 24 hours.
 *
 * "Still running" is known two ways without ever waiting: in this process by a set of keys in flight, and across
 * processes by `IdempotencyStore.claim` (a transaction-scoped try-lock on PostgreSQL). With SQLite's one
 * connection, waiting for the key inside the transaction would deadlock, so nothing here waits.
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Schema } from "effect"
import { digest } from "../shared/Digest.js"
import { IdempotencyKeyInUse, IdempotencyKeyReused, type PersistenceError, ValidationError } from "../shared/Errors.js"
import type { WorkspaceId } from "../shared/Ids.js"
import { now } from "../shared/Timestamp.js"
import { Transactor } from "../shared/Transactor.js"
import { IdempotencyStore, type IdempotentOutcome } from "./IdempotencyStore.js"

/** How long a key is kept. */
export const IDEMPOTENCY_KEY_TTL = Duration.hours(24)

/**
 * What a request asked for, to tell a retry from another request under the same key: method, path and body
 * (as JSON). HTTP and the in-process API compute it the same way, so a key is one key whichever way it came.
 */
export const requestFingerprint = (method: string, path: string, body: unknown): string =>
  digest(`${method.toUpperCase()} ${path}\n${body === undefined ? "" : JSON.stringify(body)}`)

/** A key: 1 to 255 characters. */
export const IdempotencyKey = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255))

/** How a keyed request ended: run now (`fresh`, with the caller's own value) or answered from the record. */
export type IdempotentResult<A> =
  | { readonly _tag: "Fresh"; readonly value: A }
  | { readonly _tag: "Replayed"; readonly outcome: IdempotentOutcome }

const fresh = <A>(value: A): IdempotentResult<A> => ({ _tag: "Fresh", value })
const replayed = <A>(outcome: IdempotentOutcome): IdempotentResult<A> => ({ _tag: "Replayed", outcome })

/** Carries a value out of a transaction that must roll back (the outcome is not recorded). */
class Unrecorded<A> {
  constructor(readonly value: A) {}
}

export class Idempotency extends Context.Service<Idempotency>()("@support-engine/core/Idempotency", {
  make: Effect.gen(function*() {
    const store = yield* IdempotencyStore
    const tx = yield* Transactor
    const inFlight = new Set<string>()

    const checkKey = (key: string) =>
      key.length >= 1 && key.length <= 255
        ? Effect.void
        : Effect.fail(ValidationError.field("idempotency_key", "must be 1 to 255 characters"))

    /**
     * Runs `work` once per key: `record` says what to keep of its value (None: a failure, not recorded, and
     * everything `work` wrote is rolled back with the key's claim).
     */
    const run = <A, E, R>(
      workspaceId: WorkspaceId,
      key: string,
      fingerprint: string,
      work: Effect.Effect<A, E, R>,
      record: (value: A) => Option.Option<IdempotentOutcome>
    ): Effect.Effect<
      IdempotentResult<A>,
      E | ValidationError | IdempotencyKeyInUse | IdempotencyKeyReused | PersistenceError,
      R
    > => {
      const slot = `${workspaceId}\u0000${key}`
      const attempt = tx.withTransaction(Effect.gen(function*() {
        if (!(yield* store.claim(workspaceId, key))) return yield* new IdempotencyKeyInUse()
        const at = yield* now
        const existing = yield* store.find(workspaceId, key, at)
        if (Option.isSome(existing)) {
          const { fingerprint: first, ...outcome } = existing.value
          if (first !== fingerprint) return yield* new IdempotencyKeyReused()
          return replayed<A>(outcome)
        }
        const value = yield* work
        const outcome = record(value)
        if (Option.isNone(outcome)) return yield* Effect.fail(new Unrecorded(value))
        const expiresAt = DateTime.addDuration(at, IDEMPOTENCY_KEY_TTL)
        yield* store.save(workspaceId, key, { ...outcome.value, fingerprint }, at, expiresAt)
        return fresh(value)
      })).pipe(
        Effect.catchIf(
          (error): error is Unrecorded<A> => error instanceof Unrecorded,
          (unrecorded) => Effect.succeed(fresh(unrecorded.value))
        )
      )
      return Effect.andThen(
        checkKey(key),
        Effect.suspend(() => {
          if (inFlight.has(slot)) return Effect.fail(new IdempotencyKeyInUse())
          return Effect.acquireUseRelease(
            Effect.sync(() => inFlight.add(slot)),
            () => attempt,
            () => Effect.sync(() => inFlight.delete(slot))
          )
        })
      )
    }

    return { run } as const
  })
}) {
  /** Needs `IdempotencyStore` and `Transactor`. */
  static readonly layer = Layer.effect(this, this.make)
}
