/**
 * Fair webhook delivery: the dispatcher takes the oldest due deliveries of each webhook in turn, through
 * an index per webhook and due time; and the per-webhook delivery counters go (a webhook's log counts through its
 * index), since the fan-out no longer writes one counter per subscriber in the event's transaction.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(
    `CREATE INDEX webhook_deliveries_webhook_due ON webhook_deliveries (webhook_id, next_attempt_at, id)
      WHERE status = 'pending'`
  )
  yield* sql.unsafe(`DELETE FROM workspace_counters WHERE name LIKE 'webhook_deliveries:%'`)
})
