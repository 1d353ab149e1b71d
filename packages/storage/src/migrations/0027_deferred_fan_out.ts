/**
 * Deferred fan-out: the writing transaction records, beside its event, one marker saying the
 * event's deliveries are still to be made; the dispatcher turns the markers of many events into deliveries in one
 * transaction (SqlFanOut.ts). Events committed before this migration already have their deliveries: no marker.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { types } from "../shared/Columns.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = types(sql)
  // Keyed by the event (UUIDv7, so new markers go to the end of the key and a batch reads them oldest first);
  // workspace_id is the event's, for the drain that precedes a subscription change. SQLite keeps the rows in the
  // key's b-tree itself (WITHOUT ROWID): a marker costs the writer one b-tree, not a table and its key index.
  const withoutRowid = sql.onDialectOrElse({ pg: () => "", orElse: () => " WITHOUT ROWID" })
  yield* sql.unsafe(`CREATE TABLE pending_fanouts (
    event_id ${t.id} PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
    workspace_id ${t.id} NOT NULL
  )${withoutRowid}`)
})
