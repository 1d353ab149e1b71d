/** Idempotency keys: the outcome of a first request per workspace and key, kept until `expires_at`. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { types } from "../shared/Columns.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = types(sql)
  yield* sql.unsafe(`CREATE TABLE idempotency_keys (
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    idempotency_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    status ${t.int} NOT NULL,
    body TEXT NOT NULL,
    headers ${t.json} NOT NULL,
    created_at ${t.ts} NOT NULL,
    expires_at ${t.ts} NOT NULL,
    PRIMARY KEY (workspace_id, idempotency_key)
  )`)
  yield* sql.unsafe(`CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)`)
})
