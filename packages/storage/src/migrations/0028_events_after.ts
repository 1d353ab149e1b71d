/**
 * Reading a workspace's events after a given one (`GET /v1/events?after=`, and the simulator's look at the
 * log) asks for `workspace_id = ? AND id > ? ORDER BY id`. The workspace's indexes are ordered by time, so the
 * database read and sorted every event of the workspace on each call, a cost growing with the log; this index
 * serves the read as one range in id order.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE INDEX events_workspace_id ON events (workspace_id, id)`)
})
