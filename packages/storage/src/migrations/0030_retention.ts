/**
 * Retention (RetentionStore): finished deliveries are deleted by the time they finished, so an index holds only
 * those (a pending delivery costs it nothing), read oldest first. Events are deleted in id order, which is time
 * order, through the primary key. `pruned_events` keeps, per workspace, the newest event retention deleted: an
 * incremental read (`after`) from a deleted event is then told apart from an id that never existed.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { types } from "../shared/Columns.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = types(sql)
  yield* sql.unsafe(
    `CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (updated_at) WHERE status <> 'pending'`
  )
  yield* sql.unsafe(`CREATE TABLE pruned_events (
    workspace_id ${t.id} PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    last_id ${t.id} NOT NULL
  )`)
})
