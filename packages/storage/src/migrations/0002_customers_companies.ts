import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { types } from "../Columns.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = types(sql)
  yield* sql.unsafe(`CREATE TABLE companies (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    domain TEXT,
    country TEXT,
    avatar_url TEXT,
    first_seen_at ${t.ts} NOT NULL,
    last_seen_at ${t.ts} NOT NULL,
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX companies_workspace_order ON companies (workspace_id, created_at DESC, id DESC)`)
})
