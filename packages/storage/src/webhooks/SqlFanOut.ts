/**
 * The fan-out of an event to its webhook deliveries (D37), run by `DeliveryQueue.enqueue` inside the event's
 * transaction: one `INSERT ... SELECT` from the matching active subscriptions, whatever their number, and no other
 * write (issue 16: one counter `UPDATE` per webhook made every write pay for every subscriber).
 */
import { SqlClient } from "@effect/sql"
import { type Event, IdGenerator, type WorkspaceId } from "@support-engine/core"
import { Effect } from "effect"
import { params, ts } from "../shared/Columns.js"
import { afterCommit } from "../shared/SqlTransactor.js"
import { DeliverySignal } from "./DeliverySignal.js"
import { persist } from "./WebhookRows.js"

/**
 * The first 28 hex digits (with their dashes) of the delivery ids of one fan-out, made from a fresh UUIDv7 `base`;
 * the statement appends each subscriber's ordinal as the last 4 hex digits. The prefix keeps the base's time and
 * version and the 56 bits of its last seven bytes, which are the ones `IdGenerator`'s monotonic method increments
 * within a millisecond: two bases never share a prefix, so the ids of two fan-outs never meet. The ids stay UUIDv7
 * (D37: time-ordered, the same on every attempt).
 */
export const deliveryIdPrefix = (base: string): string => {
  const h = base.replaceAll("-", "")
  // h: time (12), version (1), rand_a (3), variant nibble (1), low nibble of byte 8 (1), bytes 9-15 (14).
  const kept = h.slice(18, 32)
  const digits = h.slice(0, 12) + h[12] + kept.slice(0, 3) + h[16] + kept.slice(3, 14)
  return `${digits.slice(0, 8)}-${digits.slice(8, 12)}-${digits.slice(12, 16)}-${digits.slice(16, 20)}-${
    digits.slice(20, 28)
  }`
}

/**
 * Makes `enqueue`: inside the event's transaction, one pending delivery per active webhook of the workspace that
 * subscribes to the event's type or to `*` (D37), so a committed event always has its deliveries. A workspace has
 * at most `MAX_WEBHOOKS_PER_WORKSPACE` webhooks, so 4 hex digits number its subscribers.
 */
export const makeFanOut = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const ids = yield* IdGenerator
  const signal = yield* DeliverySignal
  const p = params(sql)

  const idOf = (prefix: string) =>
    sql.onDialectOrElse({
      pg: () => sql`CAST(${prefix} || lpad(to_hex(s.n), 4, '0') AS UUID)`,
      orElse: () => sql`${prefix} || printf('%04x', s.n)`
    })

  const enqueue = (workspaceId: WorkspaceId, event: Event) =>
    Effect.gen(function*() {
      const prefix = deliveryIdPrefix(yield* ids.uuid)
      const at = ts(event.occurred_at)
      const rows = yield* sql`INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, event, status,
          attempts, round_attempts, next_attempt_at, created_at, updated_at)
        SELECT ${idOf(prefix)}, s.workspace_id, s.id, ${event.id}, ${event.event}, 'pending', 0, 0, ${at}, ${at}, ${at}
        FROM (SELECT w.id, w.workspace_id, ROW_NUMBER() OVER (ORDER BY w.id) AS n FROM webhooks w
          WHERE w.workspace_id = ${workspaceId} AND w.is_active = ${p.bool(true)}
          AND EXISTS (SELECT 1 FROM webhook_event_types t WHERE t.workspace_id = ${workspaceId}
            AND t.event_type IN (${event.event}, '*') AND t.webhook_id = w.id)) s
        RETURNING id`
      if (rows.length > 0) yield* afterCommit(signal.notifyWorkspace(workspaceId))
    }).pipe(persist)

  return enqueue
})
