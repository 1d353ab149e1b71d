/**
 * A delivery's round: how many times it was queued again by a redelivery or a recovery. A claim records
 * the round it was made in, and an attempt is recorded only if the delivery is still in that round: an attempt still
 * in flight when its delivery was redelivered belongs to the round before, and its answer must neither complete the
 * new round nor count towards the webhook's deactivation. The claimant and the attempt count cannot tell the two
 * rounds apart: the same dispatcher may claim the redelivered delivery again before the old attempt ends, and a
 * redelivery leaves the attempt count as it was.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`ALTER TABLE webhook_deliveries ADD COLUMN requeues INTEGER NOT NULL DEFAULT 0`)
})
