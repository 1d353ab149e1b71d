/**
 * The `DeliveryQueue` port on `effect/sql`: the fan-out into the queue (SqlFanOut.ts: a marker in
 * the event's transaction, the deliveries made by the dispatcher's fan-out step), and the dispatcher's side,
 * deliveries claimed under a lease in one statement, attempts recorded unless the claim was lost, leases given back.
 */
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
import { Array as Arr, type DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { DbInt, DbTimestamp, params, ts, types } from "../shared/Columns.js"
import { limit } from "../shared/Limit.js"
import { mapSqlError, toPersistenceError } from "../shared/SqlErrors.js"
import { DeliverySignal } from "./DeliverySignal.js"
import { makeDeactivationEvent } from "./SqlDeactivation.js"
import { makeFanOut } from "./SqlFanOut.js"
import { ClaimedRow, decodeIds, persist, toClaimed } from "./WebhookRows.js"

/** No limit: the largest INTEGER both databases take. */
const UNBOUNDED = 2_147_483_647

const statusOf = (outcome: DeliveryOutcome): DeliveryStatus =>
  outcome._tag === "Delivered" ? "delivered" : outcome._tag === "Retry" ? "pending" : "failed"

export const SqlDeliveryQueueLive: Layer.Layer<
  DeliveryQueue,
  never,
  SqlClient.SqlClient | IdGenerator | DeliverySignal | Outbox | SecretCipher
> = Layer
  .effect(
    DeliveryQueue,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const signal = yield* DeliverySignal
      const cipher = yield* SecretCipher
      const fanOut = yield* makeFanOut
      const recordDeactivation = yield* makeDeactivationEvent(fanOut.fanOutNow)
      const p = params(sql)
      const active = p.bool(true)
      const timestamp = sql.literal(types(sql).ts)
      const integer = sql.literal(types(sql).int)

      /**
       * Fair claiming in one statement: each active webhook offers its oldest due deliveries
       * (at most its limit, through the per-webhook due index); a webhook's offers are ranked after the attempts it
       * already has in flight, and a workspace's after its own in flight, so a webhook or workspace at its limit
       * offers nothing. The chosen rows go round-robin: first every workspace's best offer (the least busy
       * workspace first), then the second ones, ... within a workspace first one delivery of each webhook, then the
       * next. Whatever one receiver does, it holds at most its webhook's share of the slots. PostgreSQL locks the
       * offered rows and skips those another dispatcher is claiming; the update checks each row is still due,
       * so a delivery is never leased twice. Two dispatchers claiming in the same instant each count the other's
       * leases only once committed, so together they may pass a limit by one claim's worth until those end.
       */
      const claim = SqlSchema.findAll({
        Request: Schema.Struct({
          now: Schema.String,
          lease: Schema.String,
          claimant: Schema.String,
          limit: Schema.Int,
          offers: Schema.Int,
          perWebhook: Schema.Int,
          perWorkspace: Schema.Int
        }),
        Result: Schema.Struct({ id: DeliveryId }),
        execute: (r) => {
          // A webhook or workspace already at its limit offers nothing, so its backlog is not even read.
          const open = sql`NOT EXISTS (SELECT 1 FROM in_flight f WHERE f.webhook_id = w.id AND f.n >= ${r.perWebhook})
                AND NOT EXISTS (SELECT 1 FROM workspace_in_flight f
                  WHERE f.workspace_id = w.workspace_id AND f.n >= ${r.perWorkspace})`
          const candidates = sql.onDialectOrElse({
            pg: () =>
              sql`SELECT d.id, w.id AS webhook_id, w.workspace_id, d.next_attempt_at
                FROM webhooks w CROSS JOIN LATERAL (
                  SELECT x.id, x.next_attempt_at FROM webhook_deliveries x
                  WHERE x.webhook_id = w.id AND x.status = 'pending' AND x.next_attempt_at <= ${r.now}
                  ORDER BY x.next_attempt_at, x.id ${limit(sql, r.offers)} FOR UPDATE SKIP LOCKED) d
                WHERE w.is_active = ${active} AND ${open}`,
            // SQLite has no LATERAL: the same per-webhook subquery, correlated in the join.
            orElse: () =>
              sql`SELECT d.id, d.webhook_id, d.workspace_id, d.next_attempt_at
                FROM webhooks w JOIN webhook_deliveries d ON d.id IN (
                  SELECT x.id FROM webhook_deliveries x
                  WHERE x.webhook_id = w.id AND x.status = 'pending' AND x.next_attempt_at <= ${r.now}
                  ORDER BY x.next_attempt_at, x.id ${limit(sql, r.offers)})
                WHERE w.is_active = ${active} AND ${open}`
          })
          // SQLite would serve the GROUP BY from a whole-table index scan; the claimant index holds only leased rows.
          const leased = sql.onDialectOrElse({
            pg: () => sql`webhook_deliveries`,
            orElse: () => sql`webhook_deliveries INDEXED BY webhook_deliveries_claimant`
          })
          return sql`WITH in_flight AS (
                SELECT webhook_id, workspace_id, COUNT(*) AS n FROM ${leased}
                WHERE claimed_by IS NOT NULL AND status = 'pending' AND leased_until > ${r.now}
                GROUP BY webhook_id, workspace_id),
              workspace_in_flight AS (SELECT workspace_id, SUM(n) AS n FROM in_flight GROUP BY workspace_id),
              candidates AS (${candidates}),
              by_webhook AS (
                SELECT c.id, c.workspace_id, c.next_attempt_at, COALESCE(f.n, 0)
                  + ROW_NUMBER() OVER (PARTITION BY c.webhook_id ORDER BY c.next_attempt_at, c.id) AS webhook_rank
                FROM candidates c LEFT JOIN in_flight f ON f.webhook_id = c.webhook_id),
              by_workspace AS (
                SELECT b.id, b.next_attempt_at, COALESCE(f.n, 0) + ROW_NUMBER() OVER (
                  PARTITION BY b.workspace_id ORDER BY b.webhook_rank, b.next_attempt_at, b.id) AS workspace_rank
                FROM by_webhook b LEFT JOIN workspace_in_flight f ON f.workspace_id = b.workspace_id
                WHERE b.webhook_rank <= ${r.perWebhook}),
              chosen AS (
                SELECT id FROM by_workspace WHERE workspace_rank <= ${r.perWorkspace}
                ORDER BY workspace_rank, next_attempt_at, id ${limit(sql, r.limit)})
            UPDATE webhook_deliveries SET claimed_by = ${r.claimant}, leased_until = ${r.lease},
              next_attempt_at = ${r.lease}
            WHERE id IN (SELECT id FROM chosen) AND status = 'pending' AND next_attempt_at <= ${r.now}
            RETURNING id`
        }
      })

      /**
       * Whether the claim could take anything: some pending delivery of an active webhook is due, an expired lease
       * included (a claim moves `next_attempt_at` to the lease's end). One probe of the due index, where the claim
       * itself costs its in-flight counts and window functions over every active webhook however little is due; a
       * dispatcher finds nothing due most times it looks (docs/performance.md, Simulator). Nothing due: the claim
       * would have leased nothing, so skipping it changes no outcome.
       */
      const anyDue = (now: string) =>
        sql`SELECT 1 AS due FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.next_attempt_at <= ${now}
            AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.is_active = ${active})
            LIMIT 1`.pipe(Effect.map((rows) => rows.length > 0))

      const loadClaimed = SqlSchema.findAll({
        Request: Schema.Struct({ ids: Schema.Array(DeliveryId), claimant: Schema.String }),
        Result: ClaimedRow,
        execute: (r) =>
          sql`SELECT d.id, d.workspace_id, d.webhook_id, d.attempts, d.round_attempts, d.requeues, w.url, w.secret,
              w.previous_secret, w.previous_secret_expires_at, ws.organization_id, e.id AS event_id, e.event,
              e.occurred_at, e.actor_type, e.actor_id, e.data
              FROM webhook_deliveries d
              JOIN webhooks w ON w.id = d.webhook_id
              JOIN events e ON e.id = d.event_id
              JOIN workspaces ws ON ws.id = d.workspace_id
              WHERE ${sql.in("d.id", r.ids)} AND d.claimed_by = ${r.claimant}
              ORDER BY d.next_attempt_at, d.id`
      })

      const nextDue = SqlSchema.findOneOption({
        Request: Schema.NullOr(Schema.String),
        Result: Schema.Struct({ next_attempt_at: DbTimestamp }),
        execute: (after) =>
          sql`SELECT d.next_attempt_at FROM webhook_deliveries d
              WHERE d.status = 'pending' AND d.next_attempt_at IS NOT NULL
              ${after === null ? sql`` : sql`AND d.next_attempt_at > ${after}`}
              AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.is_active = ${active})
              ORDER BY d.next_attempt_at LIMIT 1`
      })

      const deactivate = (claimed: ClaimedDelivery, reason: DeactivationReason, at: DateTime.Utc) =>
        Effect.gen(function*() {
          // A change of the workspace's subscriptions: the events committed before it get their deliveries first,
          // this webhook's among them (cancelled just below, recoverable as before).
          yield* fanOut.drain(claimed.workspaceId, "skip")
          const deactivated = yield* sql`UPDATE webhooks SET is_active = ${p.bool(false)}, deactivated_at = ${ts(at)},
            deactivation_reason = ${reason}, updated_at = ${ts(at)}
            WHERE id = ${claimed.webhookId} AND is_active = ${active} RETURNING id`
          yield* sql`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, claimed_by = NULL,
            leased_until = NULL, updated_at = ${ts(at)}
            WHERE workspace_id = ${claimed.workspaceId} AND webhook_id = ${claimed.webhookId} AND status = 'pending'`
          // Once per deactivation, in its transaction: a webhook already inactive records nothing again.
          if (deactivated.length > 0) yield* recordDeactivation(claimed, reason, at)
          return deactivated.length > 0
        })

      const failureCount = SqlSchema.findOne({
        Request: WebhookId,
        Result: Schema.Struct({ consecutive_failures: DbInt }),
        execute: (id) =>
          sql`UPDATE webhooks SET consecutive_failures = consecutive_failures + 1 WHERE id = ${id}
              RETURNING consecutive_failures`
      })

      /** The attempt log rows of the recorded attempts, in one statement. */
      const logAttempts = (recorded: Arr.NonEmptyReadonlyArray<Completion>) =>
        sql`INSERT INTO webhook_delivery_attempts ${
          sql.insert(Arr.map(recorded, ({ attempt, claimed }) => ({
            delivery_id: claimed.id,
            attempt: claimed.attempts + 1,
            attempted_at: ts(attempt.attemptedAt),
            duration_ms: Math.round(attempt.durationMs),
            response_status: attempt.responseStatus,
            error: attempt.error,
            response_excerpt: attempt.responseExcerpt
          })))
        }`

      /**
       * Whether the claim under which the attempt was made still holds: not expired and taken, and the delivery still
       * in the round of the claim (migration 0029: a redelivered delivery may be claimed again by the same dispatcher
       * before the old attempt ends, with the same attempt count).
       */
      const claimHolds = ({ claimed }: Completion) =>
        sql`(id = ${claimed.id} AND claimed_by = ${claimed.claimant} AND attempts = ${claimed.attempts}
          AND requeues = ${claimed.requeues})`

      /**
       * A run of successes in three statements whatever its length: the rows whose claim holds become delivered,
       * their attempts are logged, and their webhooks' failure counts reset. The per-row values are cast so
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
          if (Arr.isArrayNonEmpty(recorded)) {
            yield* logAttempts(recorded)
            const webhooks = [...new Set(recorded.map((c) => c.claimed.webhookId))]
            yield* sql`UPDATE webhooks SET consecutive_failures = 0
              WHERE ${sql.in("id", webhooks)} AND consecutive_failures <> 0`
          }
          return run.map((c) => held.has(c.claimed.id))
        })

      /**
       * Any outcome, one delivery: a retry is rescheduled, a failure counts towards deactivation. Answers
       * whether the claim held and whether this attempt deactivated its webhook.
       */
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
          if (updated.length === 0) return { held: false, deactivated: false }
          yield* logAttempts([completion])
          let deactivated = false
          switch (outcome._tag) {
            case "Delivered": {
              yield* sql`UPDATE webhooks SET consecutive_failures = 0
                WHERE id = ${claimed.webhookId} AND consecutive_failures <> 0`
              break
            }
            case "Failed": {
              const { consecutive_failures } = yield* failureCount(claimed.webhookId)
              if (consecutive_failures >= outcome.deactivateAfter) {
                deactivated = yield* deactivate(claimed, "consecutive_failures", at)
              }
              break
            }
            case "Gone": {
              deactivated = yield* deactivate(claimed, "gone", at)
              break
            }
            case "Retry":
              break
          }
          return { held: true, deactivated }
        })

      /** Leases due deliveries and reads what sending them needs; the caller maps errors (and may hold a transaction). */
      const claimRows = ({ claimant, leaseUntil, limit, now, perWebhook, perWorkspace }: ClaimRequest) =>
        Effect.gen(function*() {
          if (limit <= 0) return []
          if (!(yield* anyDue(ts(now)))) return []
          const rows = yield* claim({
            now: ts(now),
            lease: ts(leaseUntil),
            claimant,
            limit,
            // A webhook never offers more than one claim can take, nor more than its limit.
            offers: Math.min(limit, perWebhook ?? limit),
            perWebhook: perWebhook ?? UNBOUNDED,
            perWorkspace: perWorkspace ?? UNBOUNDED
          })
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
          const deactivated: Array<WebhookId> = []
          let run: Array<Completion> = []
          for (const completion of completions) {
            if (completion.outcome._tag === "Delivered") {
              run.push(completion)
              continue
            }
            if (run.length > 0) held.push(...(yield* recordDelivered(run, at)))
            run = []
            const one = yield* recordOne(completion, at)
            held.push(one.held)
            if (one.deactivated) deactivated.push(completion.claimed.webhookId)
          }
          if (run.length > 0) held.push(...(yield* recordDelivered(run, at)))
          return { held, deactivated, claimed: next === undefined ? [] : yield* claimRows(next) }
        }).pipe(
          sql.withTransaction,
          // A success schedules nothing; any other outcome may have moved or cancelled due work.
          Effect.tap(() => completions.every((c) => c.outcome._tag === "Delivered") ? Effect.void : signal.notify),
          persist
        )

      return DeliveryQueue.of({
        enqueue: fanOut.enqueue,
        fanOut: fanOut.fanOutPending,
        claimDue: (request) => claimRows(request).pipe(persist),
        complete: (claimed, attempt, outcome, at) =>
          Effect.map(
            completeAndClaim([{ claimed, attempt, outcome }], at, undefined),
            ({ held }) => held[0]!
          ),
        completeAndClaim: (completions, at, next) =>
          completions.length === 0
            ? claimRows(next).pipe(persist, Effect.map((claimed) => ({ held: [], deactivated: [], claimed })))
            : completeAndClaim(completions, at, next),
        release: (claimant, at) =>
          sql`UPDATE webhook_deliveries SET claimed_by = NULL, leased_until = NULL, next_attempt_at = ${ts(at)}
              WHERE claimed_by = ${claimant} AND status = 'pending' RETURNING id`.pipe(
            Effect.map((rows) => rows.length),
            Effect.tap(signal.notify),
            mapSqlError
          ),
        nextDueAt: nextDue(null).pipe(
          Effect.map(Option.map((r) => r.next_attempt_at)),
          Effect.mapError(toPersistenceError)
        ),
        nextDueAfter: (at) =>
          nextDue(ts(at)).pipe(
            Effect.map(Option.map((r) => r.next_attempt_at)),
            Effect.mapError(toPersistenceError)
          ),
        changes: signal.subscribe,
        changedWorkspaces: signal.takeTouched
      })
    })
  )
