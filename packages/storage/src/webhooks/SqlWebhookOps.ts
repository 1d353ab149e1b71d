/**
 * The `WebhookOps` port on `effect/sql`: a ping addressed to one webhook, and the recovery of a webhook's
 * failed deliveries. Both run in the caller's transaction and wake this process's dispatchers after it commits.
 */
import { afterCommit, WebhookOps } from "@support-engine/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { params, ts, types } from "../shared/Columns.js"
import { mapSqlError } from "../shared/SqlErrors.js"
import { DeliverySignal } from "./DeliverySignal.js"

export const SqlWebhookOpsLive: Layer.Layer<WebhookOps, never, SqlClient.SqlClient | DeliverySignal> = Layer
  .effect(
    WebhookOps,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const signal = yield* DeliverySignal
      const p = params(sql)
      const timestamp = sql.literal(types(sql).ts)

      /** Due at `at` while the webhook is active; paused (NULL) until `enable` otherwise, as a redelivery is. */
      const dueIfActive = (at: string) =>
        sql`CASE WHEN EXISTS (SELECT 1 FROM webhooks w WHERE w.id = webhook_deliveries.webhook_id
          AND w.is_active = ${p.bool(true)}) THEN CAST(${at} AS ${timestamp}) ELSE NULL END`

      return WebhookOps.of({
        ping: (workspaceId, webhookId, event, deliveryId) =>
          Effect.gen(function*() {
            const at = ts(event.occurred_at)
            // Not through the outbox: the event is addressed to this webhook, so no fan-out and no log entry.
            yield* sql`INSERT INTO events (id, workspace_id, event, occurred_at, actor_type, actor_id, data,
              target_webhook_id) VALUES (${event.id}, ${workspaceId}, ${event.event}, ${at}, ${event.actor.type},
              ${event.actor.id}, ${p.json(event.data)}, ${webhookId})`
            yield* sql`INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, event, status,
              attempts, round_attempts, next_attempt_at, created_at, updated_at)
              SELECT ${deliveryId}, w.workspace_id, w.id, ${event.id}, ${event.event}, 'pending', 0, 0,
              CASE WHEN w.is_active = ${p.bool(true)} THEN CAST(${at} AS ${timestamp}) ELSE NULL END, ${at}, ${at}
              FROM webhooks w WHERE w.workspace_id = ${workspaceId} AND w.id = ${webhookId}`
          }).pipe(
            mapSqlError,
            Effect.andThen(afterCommit(signal.notify))
          ),
        recover: (workspaceId, webhookId, range, at) =>
          Effect.gen(function*() {
            const now = ts(at)
            // Through the (workspace_id, webhook_id, status, created_at) index, one statement per status.
            // A new round (migration 0029): an attempt of a cancelled delivery may still be in flight.
            const rows = yield* sql`UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0,
              requeues = requeues + 1, next_attempt_at = ${dueIfActive(now)},
              claimed_by = NULL, leased_until = NULL, updated_at = ${now}
              WHERE workspace_id = ${workspaceId} AND webhook_id = ${webhookId}
              AND status IN ('failed', 'cancelled') AND created_at >= ${ts(range.since)}
              ${range.until === null ? sql`` : sql`AND created_at < ${ts(range.until)}`}
              RETURNING id`
            if (rows.length > 0) yield* afterCommit(signal.notify)
            return rows.length
          }).pipe(mapSqlError)
      })
    })
  )
