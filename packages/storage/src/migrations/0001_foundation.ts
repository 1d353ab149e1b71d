import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { types } from "../shared/Columns.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = types(sql)
  yield* sql.unsafe(`CREATE TABLE workspaces (
    id ${t.id} PRIMARY KEY,
    name TEXT NOT NULL,
    organization_id ${t.id} NOT NULL,
    email_agent_id ${t.id},
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE TABLE users (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX users_workspace ON users (workspace_id, id)`)
  yield* sql.unsafe(`CREATE TABLE api_tokens (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    abilities ${t.json} NOT NULL,
    expires_at ${t.ts},
    last_used_at ${t.ts},
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE TABLE events (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    event TEXT NOT NULL,
    occurred_at ${t.ts} NOT NULL,
    actor_type TEXT NOT NULL,
    actor_id ${t.id},
    data ${t.json} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX events_workspace_order ON events (workspace_id, occurred_at DESC, id DESC)`)
  yield* sql.unsafe(
    `CREATE INDEX events_workspace_type_order ON events (workspace_id, event, occurred_at DESC, id DESC)`
  )
  yield* sql.unsafe(`CREATE TABLE workspace_counters (
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    value ${t.bigint} NOT NULL,
    PRIMARY KEY (workspace_id, name)
  )`)
})
