/**
 * Webhooks on `@effect/sql`: subscriptions and their delivery log (`WebhookRepo`), the fan-out the outbox runs in
 * each event's transaction (`WebhookFanOut`, D37), and the dispatcher's leased queue (`DeliveryQueue`, D38, D43).
 */
import { SqlClient, type SqlError, type Statement } from "@effect/sql"
import {
  Actor,
  ATTEMPT_LOG_LIMIT,
  type ClaimedDelivery,
  type ClaimRequest,
  type Completion,
  DeactivationReason,
  DeliveryAttempt,
  DeliveryId,
  type DeliveryOutcome,
  DeliveryQueue,
  DeliveryStatus,
  Event,
  EventData,
  EventId,
  EventType,
  IdGenerator,
  OrganizationId,
  type PersistenceError,
  Webhook,
  WebhookDelivery,
  WebhookEventType,
  WebhookId,
  WebhookRepo,
  WorkspaceId
} from "@support-engine/core"
import { type Cause, type DateTime, Deferred, Effect, Layer, Option, type ParseResult, Redacted, Schema } from "effect"
import { DbBoolean, DbInt, DbJson, DbTimestamp, params, ts, tsOrNull, types } from "../shared/Columns.js"
import { Counters } from "../shared/Counters.js"
import { keyset, totalOf, WindowFields, windowOf } from "../shared/Keyset.js"
import * as RowSchema from "../shared/RowSchema.js"
import { mapSqlError, toPersistenceError } from "../shared/SqlErrors.js"
import { afterCommit } from "../shared/SqlTransactor.js"

/**
 * Wakes the dispatchers of this process when deliveries are created or rescheduled. The outbox signals after its
 * transaction commits; other processes' work is found by the dispatcher's fallback poll.
 */
export class DeliverySignal extends Effect.Service<DeliverySignal>()("@support-engine/storage/DeliverySignal", {
  effect: Effect.gen(function*() {
    let current = yield* Deferred.make<void>()
    /** Completes every waiter taken before this call. */
    const notify = Effect.flatMap(Deferred.make<void>(), (next) => {
      const previous = current
      current = next
      return Deferred.succeed(previous, undefined)
    })
    const changes = Effect.sync(() => Deferred.await(current))
    return { notify: Effect.asVoid(notify), changes } as const
  })
}) {}

/** Maps driver and decoding failures of a multi-statement step; the `PersistenceError`s of helpers pass. */
const persist = <A, R>(
  self: Effect.Effect<
    A,
    SqlError.SqlError | ParseResult.ParseError | Cause.NoSuchElementException | PersistenceError,
    R
  >
): Effect.Effect<A, PersistenceError, R> =>
  Effect.mapError(self, (error) => error._tag === "PersistenceError" ? error : toPersistenceError(error))

const WEBHOOKS = "webhooks"
const deliveriesCounter = (webhookId: WebhookId) => `webhook_deliveries:${webhookId}`

const WEBHOOK_COLUMNS = `id, url, description, events, is_active, consecutive_failures, deactivated_at,
  deactivation_reason, previous_secret_expires_at, created_at, updated_at`

const WebhookRow = Schema.Struct({
  id: WebhookId,
  url: Schema.String,
  description: Schema.NullOr(Schema.String),
  events: DbJson(Schema.Array(WebhookEventType)),
  is_active: DbBoolean,
  consecutive_failures: DbInt,
  deactivated_at: Schema.NullOr(DbTimestamp),
  deactivation_reason: Schema.NullOr(DeactivationReason),
  previous_secret_expires_at: Schema.NullOr(DbTimestamp),
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})
const toWebhook = (row: typeof WebhookRow.Type) => new Webhook(row)

const DeliveryRow = Schema.Struct({
  id: DeliveryId,
  webhook_id: WebhookId,
  event_id: EventId,
  event: EventType,
  status: DeliveryStatus,
  attempts: DbInt,
  next_attempt_at: Schema.NullOr(DbTimestamp),
  last_attempt_at: Schema.NullOr(DbTimestamp),
  response_status: Schema.NullOr(DbInt),
  last_error: Schema.NullOr(Schema.String),
  delivered_at: Schema.NullOr(DbTimestamp),
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})

const AttemptRow = Schema.Struct({
  delivery_id: DeliveryId,
  attempt: DbInt,
  attempted_at: DbTimestamp,
  duration_ms: DbInt,
  response_status: Schema.NullOr(DbInt),
  error: Schema.NullOr(Schema.String),
  response_excerpt: Schema.NullOr(Schema.String)
})

const ClaimedRow = Schema.Struct({
  id: DeliveryId,
  workspace_id: WorkspaceId,
  webhook_id: WebhookId,
  attempts: DbInt,
  round_attempts: DbInt,
  url: Schema.String,
  secret: Schema.Redacted(Schema.String),
  previous_secret: Schema.NullOr(Schema.Redacted(Schema.String)),
  previous_secret_expires_at: Schema.NullOr(DbTimestamp),
  organization_id: OrganizationId,
  event_id: EventId,
  event: EventType,
  occurred_at: DbTimestamp,
  actor_type: Actor.fields.type,
  actor_id: Schema.NullOr(Schema.UUID),
  data: DbJson(EventData)
})

const decodeIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: DeliveryId })))

const toClaimed = (claimant: string) => (row: typeof ClaimedRow.Type): ClaimedDelivery => ({
  id: row.id,
  workspaceId: row.workspace_id,
  organizationId: row.organization_id,
  webhookId: row.webhook_id,
  url: row.url,
  secrets: {
    current: row.secret,
    previous: row.previous_secret,
    previousExpiresAt: row.previous_secret_expires_at
  },
  // Every field was checked when the row was decoded (ClaimedRow): the models need no second check.
  event: new Event({
    id: row.event_id,
    event: row.event,
    occurred_at: row.occurred_at,
    actor: new Actor({ type: row.actor_type, id: row.actor_id }, true),
    data: row.data
  }, true),
  attempts: row.attempts,
  roundAttempts: row.round_attempts,
  claimant
})

/**
 * Creates, inside the event's transaction, one pending delivery per active webhook of the workspace that
 * subscribes to the event's type or to `*` (D37): a committed event always has its deliveries.
 */
export class WebhookFanOut extends Effect.Service<WebhookFanOut>()("@support-engine/storage/WebhookFanOut", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const counters = yield* Counters
    const ids = yield* IdGenerator
    const signal = yield* DeliverySignal
    const p = params(sql)

    const subscribers = RowSchema.findAll({
      Request: Schema.Struct({ workspace_id: WorkspaceId, event: Schema.String }),
      Result: Schema.Struct({ webhook_id: WebhookId }),
      execute: (r) =>
        sql`SELECT DISTINCT t.webhook_id FROM webhook_event_types t JOIN webhooks w ON w.id = t.webhook_id
            WHERE t.workspace_id = ${r.workspace_id} AND t.event_type IN (${r.event}, '*')
            AND w.is_active = ${p.bool(true)}`
    })

    const enqueue = (workspaceId: WorkspaceId, event: Event) =>
      Effect.gen(function*() {
        const targets = yield* subscribers({ workspace_id: workspaceId, event: event.event })
        if (targets.length === 0) return
        const at = ts(event.occurred_at)
        const rows = yield* Effect.forEach(targets, ({ webhook_id }) =>
          Effect.map(ids.uuid, (id) => ({
            id,
            workspace_id: workspaceId,
            webhook_id,
            event_id: event.id,
            event: event.event,
            status: "pending",
            attempts: 0,
            round_attempts: 0,
            next_attempt_at: at,
            created_at: at,
            updated_at: at
          })))
        yield* sql`INSERT INTO webhook_deliveries ${sql.insert(rows)}`
        yield* Effect.forEach(targets, ({ webhook_id }) => counters.add(workspaceId, deliveriesCounter(webhook_id), 1))
        yield* afterCommit(signal.notify)
      }).pipe(persist)

    return { enqueue } as const
  })
}) {}

export const SqlWebhookRepoLive: Layer.Layer<WebhookRepo, never, SqlClient.SqlClient | Counters | DeliverySignal> =
  Layer.effect(
    WebhookRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const counters = yield* Counters
      const signal = yield* DeliverySignal
      const p = params(sql)
      const columns = sql.literal(WEBHOOK_COLUMNS)
      const timestamp = sql.literal(types(sql).ts)

      const findById = RowSchema.findOne({
        Request: Schema.Struct({ workspace_id: WorkspaceId, id: WebhookId }),
        Result: WebhookRow,
        execute: (r) => sql`SELECT ${columns} FROM webhooks WHERE workspace_id = ${r.workspace_id} AND id = ${r.id}`
      })

      const page = RowSchema.findAll({
        Request: Schema.Struct({ workspace_id: WorkspaceId, ...WindowFields }),
        Result: WebhookRow,
        execute: (r) =>
          sql`SELECT ${columns} FROM webhooks WHERE workspace_id = ${r.workspace_id}
              ${keyset(sql, r, { newest: "created_at", updated: "updated_at" })}`
      })

      const insertTypes = (workspaceId: WorkspaceId, webhook: Webhook) =>
        sql`INSERT INTO webhook_event_types ${
          sql.insert(webhook.events.map((event_type) => ({
            workspace_id: workspaceId,
            event_type,
            webhook_id: webhook.id
          })))
        }`

      const deliveryPage = RowSchema.findAll({
        Request: Schema.Struct({
          workspace_id: WorkspaceId,
          webhook_id: WebhookId,
          status: Schema.optional(Schema.String),
          ...WindowFields
        }),
        Result: DeliveryRow,
        execute: (r) =>
          sql`SELECT * FROM webhook_deliveries WHERE workspace_id = ${r.workspace_id} AND webhook_id = ${r.webhook_id}
              ${r.status === undefined ? sql`` : sql`AND status = ${r.status}`}
              ${keyset(sql, r, { newest: "created_at", updated: "updated_at" })}`
      })

      const findDelivery = RowSchema.findOne({
        Request: Schema.Struct({ workspace_id: WorkspaceId, webhook_id: WebhookId, id: DeliveryId }),
        Result: DeliveryRow,
        execute: (r) =>
          sql`SELECT * FROM webhook_deliveries
              WHERE workspace_id = ${r.workspace_id} AND webhook_id = ${r.webhook_id} AND id = ${r.id}`
      })

      const countByStatus = RowSchema.single({
        Request: Schema.Struct({ workspace_id: WorkspaceId, webhook_id: WebhookId, status: Schema.String }),
        Result: Schema.Struct({ total: DbInt }),
        execute: (r) =>
          sql`SELECT COUNT(*) AS total FROM webhook_deliveries
              WHERE workspace_id = ${r.workspace_id} AND webhook_id = ${r.webhook_id} AND status = ${r.status}`
      })

      const latestAttempts = RowSchema.findAll({
        Request: Schema.Array(DeliveryId),
        Result: AttemptRow,
        execute: (ids) =>
          sql`SELECT a.* FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
              WHERE ${sql.in("a.delivery_id", ids)} AND a.attempt > d.attempts - ${ATTEMPT_LOG_LIMIT}
              ORDER BY a.delivery_id, a.attempt`
      })

      /** Rows with their attempt logs, one query for the logs of the whole page. */
      const withLogs = (rows: ReadonlyArray<typeof DeliveryRow.Type>) =>
        Effect.gen(function*() {
          if (rows.length === 0) return []
          const attempts = yield* latestAttempts(rows.map((r) => r.id))
          const logs = new Map<string, Array<DeliveryAttempt>>()
          for (const { delivery_id, ...a } of attempts) {
            const log = logs.get(delivery_id) ?? []
            log.push(new DeliveryAttempt(a))
            logs.set(delivery_id, log)
          }
          return rows.map((row) => new WebhookDelivery({ ...row, attempt_log: logs.get(row.id) ?? [] }))
        })

      return WebhookRepo.of({
        insert: (workspaceId, w, secret) =>
          Effect.gen(function*() {
            yield* sql`INSERT INTO webhooks (id, workspace_id, url, description, events, is_active,
              consecutive_failures, deactivated_at, deactivation_reason, secret, previous_secret,
              previous_secret_expires_at, created_at, updated_at) VALUES (${w.id}, ${workspaceId}, ${w.url},
              ${w.description}, ${p.json(w.events)}, ${p.bool(w.is_active)}, ${w.consecutive_failures},
              ${tsOrNull(w.deactivated_at)}, ${w.deactivation_reason}, ${Redacted.value(secret)}, NULL,
              ${tsOrNull(w.previous_secret_expires_at)}, ${ts(w.created_at)}, ${ts(w.updated_at)})`
            yield* insertTypes(workspaceId, w)
            yield* counters.add(workspaceId, WEBHOOKS, 1)
          }).pipe(persist),
        findById: (workspaceId, id) =>
          findById({ workspace_id: workspaceId, id }).pipe(Effect.map(Option.map(toWebhook)), mapSqlError),
        update: (workspaceId, w) =>
          Effect.gen(function*() {
            yield* sql`UPDATE webhooks SET url = ${w.url}, description = ${w.description},
              events = ${p.json(w.events)}, updated_at = ${ts(w.updated_at)}
              WHERE workspace_id = ${workspaceId} AND id = ${w.id}`
            yield* sql`DELETE FROM webhook_event_types WHERE webhook_id = ${w.id}`
            yield* insertTypes(workspaceId, w)
          }).pipe(mapSqlError),
        delete: (workspaceId, id) =>
          Effect.gen(function*() {
            const rows = yield* sql`DELETE FROM webhooks WHERE workspace_id = ${workspaceId} AND id = ${id}
              RETURNING id`
            if (rows.length === 0) return false
            yield* counters.add(workspaceId, WEBHOOKS, -1)
            yield* sql`DELETE FROM workspace_counters
              WHERE workspace_id = ${workspaceId} AND name = ${deliveriesCounter(id)}`
            return true
          }).pipe(persist),
        list: (workspaceId, slice) =>
          Effect.all({
            items: page({ workspace_id: workspaceId, ...windowOf(slice) }).pipe(
              Effect.map((rows) => rows.map(toWebhook)),
              mapSqlError
            ),
            total: totalOf(slice, counters.get(workspaceId, WEBHOOKS))
          }),
        rotateSecret: (workspaceId, id, secret, previousExpiresAt, at) =>
          // The right-hand sides read the row as it was: the old secret becomes the previous one.
          sql`UPDATE webhooks SET secret = ${Redacted.value(secret)},
              previous_secret = ${previousExpiresAt === null ? null : sql`secret`},
              previous_secret_expires_at = ${tsOrNull(previousExpiresAt)}, updated_at = ${ts(at)}
              WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(Effect.asVoid, mapSqlError),
        enable: (workspaceId, id, at) =>
          Effect.gen(function*() {
            yield* sql`UPDATE webhooks SET is_active = ${p.bool(true)}, consecutive_failures = 0,
              deactivated_at = NULL, deactivation_reason = NULL, updated_at = ${ts(at)}
              WHERE workspace_id = ${workspaceId} AND id = ${id}`
            yield* sql`UPDATE webhook_deliveries SET next_attempt_at = ${ts(at)}, updated_at = ${ts(at)}
              WHERE workspace_id = ${workspaceId} AND webhook_id = ${id} AND status = 'pending'
              AND next_attempt_at IS NULL`
            yield* afterCommit(signal.notify)
          }).pipe(mapSqlError),
        findDelivery: (workspaceId, webhookId, id) =>
          findDelivery({ workspace_id: workspaceId, webhook_id: webhookId, id }).pipe(
            Effect.flatMap(Option.match({
              onNone: () => Effect.succeedNone,
              onSome: (row) => Effect.map(withLogs([row]), (ds) => Option.fromNullable(ds[0]))
            })),
            mapSqlError
          ),
        listDeliveries: (workspaceId, webhookId, filter, slice) =>
          Effect.all({
            items: deliveryPage({
              workspace_id: workspaceId,
              webhook_id: webhookId,
              status: filter.status,
              ...windowOf(slice)
            })
              .pipe(Effect.flatMap(withLogs), mapSqlError),
            // A status filter counts through the (workspace_id, webhook_id, status, ...) index.
            total: totalOf(
              slice,
              filter.status === undefined
                ? counters.get(workspaceId, deliveriesCounter(webhookId))
                : countByStatus({ workspace_id: workspaceId, webhook_id: webhookId, status: filter.status }).pipe(
                  Effect.map((r) => r.total),
                  mapSqlError
                )
            )
          }),
        redeliver: (workspaceId, webhookId, id, at) =>
          Effect.gen(function*() {
            yield* sql`UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0,
              next_attempt_at = CASE WHEN EXISTS (SELECT 1 FROM webhooks w WHERE w.id = webhook_deliveries.webhook_id
                AND w.is_active = ${p.bool(true)}) THEN CAST(${ts(at)} AS ${timestamp}) ELSE NULL END,
              claimed_by = NULL, leased_until = NULL, updated_at = ${ts(at)}
              WHERE workspace_id = ${workspaceId} AND webhook_id = ${webhookId} AND id = ${id}`
            yield* afterCommit(signal.notify)
          }).pipe(mapSqlError)
      })
    })
  )

const statusOf = (outcome: DeliveryOutcome): DeliveryStatus =>
  outcome._tag === "Delivered" ? "delivered" : outcome._tag === "Retry" ? "pending" : "failed"

export const SqlDeliveryQueueLive: Layer.Layer<DeliveryQueue, never, SqlClient.SqlClient | DeliverySignal> = Layer
  .effect(
    DeliveryQueue,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const signal = yield* DeliverySignal
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
          yield* sql`UPDATE webhooks SET is_active = ${p.bool(false)}, deactivated_at = ${ts(at)},
            deactivation_reason = ${reason}, updated_at = ${ts(at)}
            WHERE id = ${claimed.webhookId} AND is_active = ${active}`
          yield* sql`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, claimed_by = NULL,
            leased_until = NULL, updated_at = ${ts(at)}
            WHERE workspace_id = ${claimed.workspaceId} AND webhook_id = ${claimed.webhookId} AND status = 'pending'`
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
          return claimed.map(toClaimed(claimant))
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
        claimDue: (request) => claimRows(request).pipe(mapSqlError),
        complete: (claimed, attempt, outcome, at) =>
          Effect.map(
            completeAndClaim([{ claimed, attempt, outcome }], at, undefined),
            ({ held }) => held[0]!
          ),
        completeAndClaim: (completions, at, next) =>
          completions.length === 0
            ? claimRows(next).pipe(mapSqlError, Effect.map((claimed) => ({ held: [], claimed })))
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
        changes: signal.changes
      })
    })
  )
