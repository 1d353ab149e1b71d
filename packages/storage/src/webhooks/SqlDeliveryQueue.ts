/**
 * The `DeliveryQueue` port on `@effect/sql` (D37, D38, D43): the fan-out into the queue, and the dispatcher's side,
 * deliveries claimed under a lease in one statement, attempts recorded unless the claim was lost, leases given back.
 */
import { SqlClient, type Statement } from "@effect/sql"
import type { IdGenerator, Outbox } from "@support-engine/core"
import {
  type ClaimedDelivery,
  type ClaimRequest,
  type Completion,
  type DeactivationReason,
  DeliveryId,
  type DeliveryOutcome,
  DeliveryQueue,
  type DeliveryStatus,
  SecretCipher,
  WebhookId
} from "@support-engine/core"
import { type DateTime, Effect, Layer, Option, Schema } from "effect"
import { DbInt, DbTimestamp, params, ts, types } from "../shared/Columns.js"
import type { Counters } from "../shared/Counters.js"
import * as RowSchema from "../shared/RowSchema.js"
import { mapSqlError, toPersistenceError } from "../shared/SqlErrors.js"
import { DeliverySignal } from "./DeliverySignal.js"
import { makeDeactivationEvent } from "./SqlDeactivation.js"
import { makeFanOut } from "./SqlFanOut.js"
import { ClaimedRow, decodeIds, persist, toClaimed } from "./WebhookRows.js"

const statusOf = (outcome: DeliveryOutcome): DeliveryStatus =>
  outcome._tag === "Delivered" ? "delivered" : outcome._tag === "Retry" ? "pending" : "failed"

export const SqlDeliveryQueueLive: Layer.Layer<
  DeliveryQueue,
  never,
  SqlClient.SqlClient | Counters | IdGenerator | DeliverySignal | Outbox | SecretCipher
> = Layer
  .effect(
    DeliveryQueue,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const signal = yield* DeliverySignal
      const cipher = yield* SecretCipher
      const enqueue = yield* makeFanOut
      const recordDeactivation = yield* makeDeactivationEvent(enqueue)
      const p = params(sql)
      const active = p.bool(true)
      const timestamp = sql.literal(types(sql).ts)
      const integer = sql.literal(types(sql).int)

      /** One statement: the due rows are chosen and leased together (D38); PostgreSQL skips rows others lock (D43). */
      const claim = RowSchema.findAll({
        Request: Schema.Struct({
          now: Schema.String,
          lease: Schema.String,
          claimant: Schema.String,
          limit: Schema.Int
        }),
        Result: Schema.Struct({ id: DeliveryId }),
        execute: (r) => {
          const lock = sql.onDialectOrElse({ pg: () => sql`FOR UPDATE OF d SKIP LOCKED`, orElse: () => sql`` })
          return sql`UPDATE webhook_deliveries SET claimed_by = ${r.claimant}, leased_until = ${r.lease},
              next_attempt_at = ${r.lease} WHERE id IN (
                SELECT d.id FROM webhook_deliveries d WHERE d.status = 'pending' AND d.next_attempt_at <= ${r.now}
                AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.is_active = ${active})
                ORDER BY d.next_attempt_at, d.id LIMIT ${r.limit} ${lock})
              RETURNING id`
        }
      })

      const loadClaimed = RowSchema.findAll({
        Request: Schema.Struct({ ids: Schema.Array(DeliveryId), claimant: Schema.String }),
        Result: ClaimedRow,
        execute: (r) =>
          sql`SELECT d.id, d.workspace_id, d.webhook_id, d.attempts, d.round_attempts, w.url, w.secret,
              w.previous_secret, w.previous_secret_expires_at, ws.organization_id, e.id AS event_id, e.event,
              e.occurred_at, e.actor_type, e.actor_id, e.data
              FROM webhook_deliveries d
              JOIN webhooks w ON w.id = d.webhook_id
              JOIN events e ON e.id = d.event_id
              JOIN workspaces ws ON ws.id = d.workspace_id
              WHERE ${sql.in("d.id", r.ids)} AND d.claimed_by = ${r.claimant}
              ORDER BY d.next_attempt_at, d.id`
      })

      const nextDue = RowSchema.findOne({
        Request: Schema.Void,
        Result: Schema.Struct({ next_attempt_at: DbTimestamp }),
        execute: () =>
          sql`SELECT d.next_attempt_at FROM webhook_deliveries d
              WHERE d.status = 'pending' AND d.next_attempt_at IS NOT NULL
              AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.is_active = ${active})
              ORDER BY d.next_attempt_at LIMIT 1`
      })

      const deactivate = (claimed: ClaimedDelivery, reason: DeactivationReason, at: DateTime.Utc) =>
        Effect.gen(function*() {
          const deactivated = yield* sql`UPDATE webhooks SET is_active = ${p.bool(false)}, deactivated_at = ${ts(at)},
            deactivation_reason = ${reason}, updated_at = ${ts(at)}
            WHERE id = ${claimed.webhookId} AND is_active = ${active} RETURNING id`
          yield* sql`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, claimed_by = NULL,
            leased_until = NULL, updated_at = ${ts(at)}
            WHERE workspace_id = ${claimed.workspaceId} AND webhook_id = ${claimed.webhookId} AND status = 'pending'`
          // Once per deactivation, in its transaction (D52): a webhook already inactive records nothing again.
          if (deactivated.length > 0) yield* recordDeactivation(claimed, reason, at)
        })

      const failureCount = RowSchema.single({
        Request: WebhookId,
        Result: Schema.Struct({ consecutive_failures: DbInt }),
        execute: (id) =>
          sql`UPDATE webhooks SET consecutive_failures = consecutive_failures + 1 WHERE id = ${id}
              RETURNING consecutive_failures`
      })

      /** The attempt log rows of the recorded attempts, in one statement. */
      const logAttempts = (recorded: ReadonlyArray<Completion>) =>
        sql`INSERT INTO webhook_delivery_attempts ${
          sql.insert(recorded.map(({ attempt, claimed }) => ({
            delivery_id: claimed.id,
            attempt: claimed.attempts + 1,
            attempted_at: ts(attempt.attemptedAt),
            duration_ms: Math.round(attempt.durationMs),
            response_status: attempt.responseStatus,
            error: attempt.error,
            response_excerpt: attempt.responseExcerpt
          })))
        }`

      /** Whether the claim under which the attempt was made still holds (not expired and taken, not redelivered). */
      const claimHolds = ({ claimed }: Completion) =>
        sql`(id = ${claimed.id} AND claimed_by = ${claimed.claimant} AND attempts = ${claimed.attempts})`

      /**
       * A run of successes in three statements whatever its length: the rows whose claim holds become delivered,
       * their attempts are logged, and their webhooks' failure counts reset (D38). The per-row values are cast so
       * that PostgreSQL types the `CASE` like the column.
       */
      const recordDelivered = (run: ReadonlyArray<Completion>, at: DateTime.Utc) =>
        Effect.gen(function*() {
          const perRow = (value: (c: Completion) => string | number | null, type: Statement.Fragment) =>
            sql`CASE id ${
              sql.join(" ", false)(run.map((c) => sql`WHEN ${c.claimed.id} THEN CAST(${value(c)} AS ${type})`))
            } END`
          const rows = yield* sql`UPDATE webhook_deliveries SET attempts = attempts + 1,
            round_attempts = round_attempts + 1, status = 'delivered', next_attempt_at = NULL,
            last_attempt_at = ${perRow((c) => ts(c.attempt.attemptedAt), timestamp)},
            response_status = ${perRow((c) => c.attempt.responseStatus, integer)}, last_error = NULL,
            delivered_at = ${ts(at)}, claimed_by = NULL, leased_until = NULL, updated_at = ${ts(at)}
            WHERE status = 'pending' AND ${sql.or(run.map(claimHolds))} RETURNING id`
          const held = new Set((yield* decodeIds(rows)).map((r) => r.id))
          const recorded = run.filter((c) => held.has(c.claimed.id))
          if (recorded.length > 0) {
            yield* logAttempts(recorded)
            const webhooks = [...new Set(recorded.map((c) => c.claimed.webhookId))]
            yield* sql`UPDATE webhooks SET consecutive_failures = 0
              WHERE ${sql.in("id", webhooks)} AND consecutive_failures <> 0`
          }
          return run.map((c) => held.has(c.claimed.id))
        })

      /** Any outcome, one delivery: a retry is rescheduled, a failure counts towards deactivation (D38). */
      const recordOne = (completion: Completion, at: DateTime.Utc) =>
        Effect.gen(function*() {
          const { attempt, claimed, outcome } = completion
          const status = statusOf(outcome)
          const updated = yield* sql`UPDATE webhook_deliveries SET attempts = attempts + 1,
            round_attempts = round_attempts + 1, status = ${status},
            next_attempt_at = ${outcome._tag === "Retry" ? ts(outcome.at) : null},
            last_attempt_at = ${ts(attempt.attemptedAt)}, response_status = ${attempt.responseStatus},
            last_error = ${attempt.error}, delivered_at = ${outcome._tag === "Delivered" ? ts(at) : sql`delivered_at`},
            claimed_by = NULL, leased_until = NULL, updated_at = ${ts(at)}
            WHERE status = 'pending' AND ${claimHolds(completion)} RETURNING id`
          if (updated.length === 0) return false
          yield* logAttempts([completion])
          switch (outcome._tag) {
            case "Delivered": {
              yield* sql`UPDATE webhooks SET consecutive_failures = 0
                WHERE id = ${claimed.webhookId} AND consecutive_failures <> 0`
              break
            }
            case "Failed": {
              const { consecutive_failures } = yield* failureCount(claimed.webhookId)
              if (consecutive_failures >= outcome.deactivateAfter) {
                yield* deactivate(claimed, "consecutive_failures", at)
              }
              break
            }
            case "Gone": {
              yield* deactivate(claimed, "gone", at)
              break
            }
            case "Retry":
              break
          }
          return true
        })

      /** Leases due deliveries and reads what sending them needs; the caller maps errors (and may hold a transaction). */
      const claimRows = ({ claimant, leaseUntil, limit, now }: ClaimRequest) =>
        Effect.gen(function*() {
          if (limit <= 0) return []
          const rows = yield* claim({ now: ts(now), lease: ts(leaseUntil), claimant, limit })
          if (rows.length === 0) return []
          const claimed = yield* loadClaimed({ ids: rows.map((r) => r.id), claimant })
          return yield* Effect.forEach(claimed, toClaimed(claimant, cipher))
        })

      /**
       * In order, so the failure count sees successes and failures as they happened; consecutive successes go
       * together. The first statement writes, so SQLite takes the write lock at once instead of upgrading a read.
       * The claim comes last, in the same transaction: on SQLite the pages both touch are written once.
       */
      const completeAndClaim = (
        completions: ReadonlyArray<Completion>,
        at: DateTime.Utc,
        next: ClaimRequest | undefined
      ) =>
        Effect.gen(function*() {
          const held: Array<boolean> = []
          let run: Array<Completion> = []
          for (const completion of completions) {
            if (completion.outcome._tag === "Delivered") {
              run.push(completion)
              continue
            }
            if (run.length > 0) held.push(...(yield* recordDelivered(run, at)))
            run = []
            held.push(yield* recordOne(completion, at))
          }
          if (run.length > 0) held.push(...(yield* recordDelivered(run, at)))
          return { held, claimed: next === undefined ? [] : yield* claimRows(next) }
        }).pipe(
          sql.withTransaction,
          // A success schedules nothing; any other outcome may have moved or cancelled due work.
          Effect.tap(() => completions.every((c) => c.outcome._tag === "Delivered") ? Effect.void : signal.notify),
          persist
        )

      return DeliveryQueue.of({
        enqueue,
        claimDue: (request) => claimRows(request).pipe(persist),
        complete: (claimed, attempt, outcome, at) =>
          Effect.map(
            completeAndClaim([{ claimed, attempt, outcome }], at, undefined),
            ({ held }) => held[0]!
          ),
        completeAndClaim: (completions, at, next) =>
          completions.length === 0
            ? claimRows(next).pipe(persist, Effect.map((claimed) => ({ held: [], claimed })))
            : completeAndClaim(completions, at, next),
        release: (claimant, at) =>
          sql`UPDATE webhook_deliveries SET claimed_by = NULL, leased_until = NULL, next_attempt_at = ${ts(at)}
              WHERE claimed_by = ${claimant} AND status = 'pending' RETURNING id`.pipe(
            Effect.map((rows) => rows.length),
            Effect.tap(signal.notify),
            mapSqlError
          ),
        nextDueAt: nextDue(undefined).pipe(
          Effect.map(Option.map((r) => r.next_attempt_at)),
          Effect.mapError(toPersistenceError)
        ),
        changes: signal.subscribe
      })
    })
  )
