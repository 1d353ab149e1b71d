/** The `WebhookRepo` port on `effect/sql`: subscriptions and their delivery log, scoped by workspace. */
import type { IdGenerator } from "@support-engine/core"
import {
  afterCommit,
  ATTEMPT_LOG_LIMIT,
  DeliveryAttempt,
  DeliveryId,
  SecretCipher,
  type Webhook,
  WebhookDelivery,
  WebhookId,
  WebhookRepo,
  webhookSecretContext,
  WorkspaceId
} from "@support-engine/core"
import type { Redacted } from "effect"
import { Array as Arr, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbInt, params, ts, tsOrNull, types } from "../shared/Columns.js"
import { Counters } from "../shared/Counters.js"
import { keyset, totalOf, WindowFields, windowOf } from "../shared/Keyset.js"
import { mapSqlError } from "../shared/SqlErrors.js"
import { DeliverySignal } from "./DeliverySignal.js"
import { erasePreviousSecrets } from "./SecretsAtRest.js"
import { makeFanOut } from "./SqlFanOut.js"
import { AttemptRow, DeliveryRow, persist, toWebhook, WEBHOOK_COLUMNS, WebhookRow, WEBHOOKS } from "./WebhookRows.js"

export const SqlWebhookRepoLive: Layer.Layer<
  WebhookRepo,
  never,
  SqlClient.SqlClient | Counters | DeliverySignal | SecretCipher | IdGenerator
> = Layer.effect(
  WebhookRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cipher = yield* SecretCipher
    // Secrets are stored encrypted, bound to their webhook (SecretsAtRest.ts); only the dispatcher decrypts them.
    const sealed = (id: WebhookId, secret: Redacted.Redacted<string>) =>
      cipher.encrypt(secret, webhookSecretContext(id))
    const counters = yield* Counters
    const signal = yield* DeliverySignal
    const fanOut = yield* makeFanOut
    const p = params(sql)
    const columns = sql.literal(WEBHOOK_COLUMNS)
    const timestamp = sql.literal(types(sql).ts)

    const findById = SqlSchema.findOneOption({
      Request: Schema.Struct({ workspace_id: WorkspaceId, id: WebhookId }),
      Result: WebhookRow,
      execute: (r) => sql`SELECT ${columns} FROM webhooks WHERE workspace_id = ${r.workspace_id} AND id = ${r.id}`
    })

    const page = SqlSchema.findAll({
      Request: Schema.Struct({ workspace_id: WorkspaceId, ...WindowFields }),
      Result: WebhookRow,
      execute: (r) =>
        sql`SELECT ${columns} FROM webhooks WHERE workspace_id = ${r.workspace_id}
              ${keyset(sql, r, { newest: "created_at", updated: "updated_at" })}`
    })

    // A webhook subscribes to at least one type (the requests say so); no row to write otherwise.
    const insertTypes = (workspaceId: WorkspaceId, webhook: Webhook) => {
      const rows = webhook.events.map((event_type) => ({
        workspace_id: workspaceId,
        event_type,
        webhook_id: webhook.id
      }))
      return Arr.isArrayNonEmpty(rows)
        ? Effect.asVoid(sql`INSERT INTO webhook_event_types ${sql.insert(rows)}`)
        : Effect.void
    }

    const deliveryPage = SqlSchema.findAll({
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

    const findDelivery = SqlSchema.findOneOption({
      Request: Schema.Struct({ workspace_id: WorkspaceId, webhook_id: WebhookId, id: DeliveryId }),
      Result: DeliveryRow,
      execute: (r) =>
        sql`SELECT * FROM webhook_deliveries
              WHERE workspace_id = ${r.workspace_id} AND webhook_id = ${r.webhook_id} AND id = ${r.id}`
    })

    /**
     * A webhook's deliveries, counted through the index that leads with (workspace_id, webhook_id[, status]): the
     * log is always filtered by its webhook, and no list counts a whole table. No counter per webhook: the fan-out
     * would have to update one for every subscriber in the event's transaction.
     */
    const countDeliveries = SqlSchema.findOne({
      Request: Schema.Struct({
        workspace_id: WorkspaceId,
        webhook_id: WebhookId,
        status: Schema.optional(Schema.String)
      }),
      Result: Schema.Struct({ total: DbInt }),
      execute: (r) =>
        sql`SELECT COUNT(*) AS total FROM webhook_deliveries
            WHERE workspace_id = ${r.workspace_id} AND webhook_id = ${r.webhook_id}
            ${r.status === undefined ? sql`` : sql`AND status = ${r.status}`}`
    })

    const latestAttempts = SqlSchema.findAll({
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
      lockSubscriptions: fanOut.lockSubscriptions,
      // Concurrent creates wait for each other in `lockSubscriptions` (PostgreSQL); SQLite runs one transaction at a
      // time on its connection.
      countForInsert: (workspaceId) => counters.get(workspaceId, WEBHOOKS),
      insert: (workspaceId, w, secret) =>
        Effect.gen(function*() {
          yield* sql`INSERT INTO webhooks (id, workspace_id, url, description, events, is_active,
              consecutive_failures, deactivated_at, deactivation_reason, secret, previous_secret,
              previous_secret_expires_at, created_at, updated_at) VALUES (${w.id}, ${workspaceId}, ${w.url},
              ${w.description}, ${p.json(w.events)}, ${p.bool(w.is_active)}, ${w.consecutive_failures},
              ${tsOrNull(w.deactivated_at)}, ${w.deactivation_reason}, ${sealed(w.id, secret)}, NULL,
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
        sql`UPDATE webhooks SET secret = ${sealed(id, secret)},
              previous_secret = ${previousExpiresAt === null ? null : sql`secret`},
              previous_secret_expires_at = ${tsOrNull(previousExpiresAt)}, updated_at = ${ts(at)}
              WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(Effect.asVoid, mapSqlError),
      enable: (workspaceId, id, at) =>
        Effect.gen(function*() {
          // A deactivation cancels the webhook's pending deliveries. On PostgreSQL a dispatcher fanning out
          // events the deactivation's drain skipped (their markers were locked) may commit deliveries for the
          // webhook after it: pending, due, of an inactive webhook, which nothing else makes (a redelivery or ping
          // while inactive is paused, NULL). They are cancelled here, as of the deactivation, before the webhook is
          // active again, so enabling never sends what the deactivation cancelled; a recovery brings them back.
          yield* sql`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, claimed_by = NULL,
              leased_until = NULL, updated_at = COALESCE((SELECT w.deactivated_at FROM webhooks w
                WHERE w.id = webhook_deliveries.webhook_id), CAST(${ts(at)} AS ${timestamp}))
              WHERE workspace_id = ${workspaceId} AND webhook_id = ${id} AND status = 'pending'
              AND next_attempt_at IS NOT NULL AND EXISTS (SELECT 1 FROM webhooks w
                WHERE w.id = webhook_deliveries.webhook_id AND w.is_active = ${p.bool(false)})`
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
            onSome: (row) => Effect.map(withLogs([row]), (ds) => Option.fromNullishOr(ds[0]))
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
          total: totalOf(
            slice,
            countDeliveries({ workspace_id: workspaceId, webhook_id: webhookId, status: filter.status }).pipe(
              Effect.map((r) => r.total),
              mapSqlError
            )
          )
        }),
      erasePreviousSecrets: (at) => erasePreviousSecrets(at).pipe(Effect.provideService(SqlClient.SqlClient, sql)),
      redeliver: (workspaceId, webhookId, id, at) =>
        Effect.gen(function*() {
          // A new round (migration 0029): an attempt still in flight belongs to the one before.
          yield* sql`UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, requeues = requeues + 1,
              next_attempt_at = CASE WHEN EXISTS (SELECT 1 FROM webhooks w WHERE w.id = webhook_deliveries.webhook_id
                AND w.is_active = ${p.bool(true)}) THEN CAST(${ts(at)} AS ${timestamp}) ELSE NULL END,
              claimed_by = NULL, leased_until = NULL, updated_at = ${ts(at)}
              WHERE workspace_id = ${workspaceId} AND webhook_id = ${webhookId} AND id = ${id}`
          yield* afterCommit(signal.notify)
        }).pipe(mapSqlError)
    })
  })
)
