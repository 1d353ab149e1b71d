/**
 * Webhook operations: `events.target_webhook_id` marks an event addressed to one webhook (`webhook.ping`),
 * which is delivered to that webhook alone and is not part of the event log (`GET /events`).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { types } from "../shared/Columns.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = types(sql)
  yield* sql.unsafe(`ALTER TABLE events ADD COLUMN target_webhook_id ${t.id}`)
})
