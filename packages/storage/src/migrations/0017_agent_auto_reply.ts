/**
 * `auto_reply` on agents: whether the agent answers customers in the conversations assigned to it. Off for
 * every existing agent, so a workspace that never switches it on behaves as before.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { types } from "../shared/Columns.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = types(sql)
  const off = sql.onDialectOrElse({ pg: () => "FALSE", orElse: () => "0" })
  yield* sql.unsafe(`ALTER TABLE agents ADD COLUMN auto_reply ${t.bool} NOT NULL DEFAULT ${off}`)
})
