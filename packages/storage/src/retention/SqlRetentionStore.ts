/**
 * The `RetentionStore` port on `effect/sql`. Each batch selects its rows first (on PostgreSQL locking them and
 * skipping rows another transaction holds, so pruners in several processes take different rows and never wait on
 * a writer), then deletes exactly those. Events keep the workspace's counter (list totals) and its pruned-through
 * mark in the same transaction.
 */
import { EventId, type PrunedDeliveries, RetentionStore, uuidV7, WorkspaceId } from "@support-engine/core"
import { type DateTime, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbInt, ts } from "../shared/Columns.js"
import { Counters } from "../shared/Counters.js"
import { limit as limitClause } from "../shared/Limit.js"
import { mapSqlError } from "../shared/SqlErrors.js"

/** The counter SqlOutbox keeps for the workspace's event log. */
const EVENTS_COUNTER = "events"

/** The smallest UUIDv7 of the millisecond `at`: every id made before it sorts below. */
const firstIdAt = (at: DateTime.Utc): string => uuidV7(at.epochMilliseconds, new Uint8Array(10))

const EventRow = Schema.Struct({
  id: EventId,
  workspace_id: WorkspaceId,
  target_webhook_id: Schema.NullOr(Schema.String)
})

export const SqlRetentionStoreLive: Layer.Layer<RetentionStore, never, SqlClient.SqlClient | Counters> = Layer.effect(
  RetentionStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const counters = yield* Counters
    const lock = sql.onDialectOrElse({ pg: () => sql`FOR UPDATE SKIP LOCKED`, orElse: () => sql`` })
    const lockEvents = sql.onDialectOrElse({ pg: () => sql`FOR UPDATE OF e SKIP LOCKED`, orElse: () => sql`` })

    const finishedDeliveries = SqlSchema.findAll({
      Request: Schema.Struct({ before: Schema.String, limit: Schema.Int }),
      Result: Schema.Struct({ id: Schema.String }),
      execute: (r) =>
        sql`SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < ${r.before}
            ORDER BY updated_at ${limitClause(sql, r.limit)} ${lock}`
    })

    const countAttempts = SqlSchema.findOne({
      Request: Schema.Array(Schema.String),
      Result: Schema.Struct({ total: DbInt }),
      execute: (ids) => sql`SELECT COUNT(*) AS total FROM webhook_delivery_attempts WHERE ${sql.in("delivery_id", ids)}`
    })

    // An event stays while a delivery carries it (pending, claimed or finished: deliveries have their own
    // retention) and while its deliveries are still to be made (a fan-out marker).
    const oldEvents = SqlSchema.findAll({
      Request: Schema.Struct({ first_id: Schema.String, before: Schema.String, limit: Schema.Int }),
      Result: EventRow,
      execute: (r) =>
        sql`SELECT e.id, e.workspace_id, e.target_webhook_id FROM events e
            WHERE e.id < ${r.first_id} AND e.occurred_at < ${r.before}
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
            AND NOT EXISTS (SELECT 1 FROM pending_fanouts f WHERE f.event_id = e.id)
            ORDER BY e.id ${limitClause(sql, r.limit)} ${lockEvents}`
    })

    const pruneDeliveries = (before: DateTime.Utc, limit: number) =>
      Effect.gen(function*() {
        const rows = yield* finishedDeliveries({ before: ts(before), limit })
        if (rows.length === 0) return { deliveries: 0, attempts: 0 } satisfies PrunedDeliveries
        const ids = rows.map((row) => row.id)
        const attempts = yield* countAttempts(ids)
        yield* sql`DELETE FROM webhook_delivery_attempts WHERE ${sql.in("delivery_id", ids)}`
        yield* sql`DELETE FROM webhook_deliveries WHERE ${sql.in("id", ids)}`
        return { deliveries: ids.length, attempts: attempts.total } satisfies PrunedDeliveries
      }).pipe(mapSqlError)

    /** Per workspace, in id order (so concurrent pruners lock counter rows in one order): count and newest id. */
    const logged = (rows: ReadonlyArray<typeof EventRow.Type>) => {
      const byWorkspace = new Map<WorkspaceId, { count: number; last: EventId }>()
      for (const row of rows) {
        if (row.target_webhook_id !== null) continue // not part of the log, not counted (SqlOutbox)
        const seen = byWorkspace.get(row.workspace_id)
        if (seen === undefined) byWorkspace.set(row.workspace_id, { count: 1, last: row.id })
        else byWorkspace.set(row.workspace_id, { count: seen.count + 1, last: row.id > seen.last ? row.id : seen.last })
      }
      return [...byWorkspace.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    }

    const pruneEvents = (before: DateTime.Utc, limit: number) =>
      Effect.gen(function*() {
        const rows = yield* mapSqlError(oldEvents({ first_id: firstIdAt(before), before: ts(before), limit }))
        if (rows.length === 0) return 0
        yield* mapSqlError(sql`DELETE FROM events WHERE ${sql.in("id", rows.map((row) => row.id))}`)
        for (const [workspaceId, { count, last }] of logged(rows)) {
          yield* counters.add(workspaceId, EVENTS_COUNTER, -count)
          yield* mapSqlError(sql`INSERT INTO pruned_events (workspace_id, last_id) VALUES (${workspaceId}, ${last})
            ON CONFLICT (workspace_id) DO UPDATE SET last_id = CASE
              WHEN excluded.last_id > pruned_events.last_id THEN excluded.last_id ELSE pruned_events.last_id END`)
        }
        return rows.length
      })

    return RetentionStore.of({ pruneDeliveries, pruneEvents })
  })
)
