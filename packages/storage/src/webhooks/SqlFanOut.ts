/**
 * The fan-out of an event to its webhook deliveries (D37), run by `DeliveryQueue.enqueue` inside the event's
 * transaction.
 */
import { SqlClient } from "@effect/sql"
import { type Event, IdGenerator, WebhookId, WorkspaceId } from "@support-engine/core"
import { Effect, Schema } from "effect"
import { params, ts } from "../shared/Columns.js"
import { Counters } from "../shared/Counters.js"
import * as RowSchema from "../shared/RowSchema.js"
import { afterCommit } from "../shared/SqlTransactor.js"
import { DeliverySignal } from "./DeliverySignal.js"
import { deliveriesCounter, persist } from "./WebhookRows.js"

/**
 * Makes `enqueue`: inside the event's transaction, one pending delivery per active webhook of the workspace that
 * subscribes to the event's type or to `*` (D37), so a committed event always has its deliveries.
 */
export const makeFanOut = Effect.gen(function*() {
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

  return enqueue
})
