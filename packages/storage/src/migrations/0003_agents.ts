import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { types } from "../shared/Columns.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = types(sql)
  // Prohibited phrases and escalation rules are replaced as whole lists: JSON columns on the agent row.
  yield* sql.unsafe(`CREATE TABLE agents (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    slug TEXT NOT NULL,
    description TEXT NOT NULL,
    avatar_url TEXT,
    max_messages_per_session ${t.int} NOT NULL,
    tone TEXT NOT NULL,
    response_length TEXT NOT NULL,
    is_active ${t.bool} NOT NULL,
    is_copilot ${t.bool} NOT NULL,
    model TEXT NOT NULL,
    prohibited_phrases ${t.json} NOT NULL,
    escalation_rules ${t.json} NOT NULL,
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE UNIQUE INDEX agents_workspace_slug ON agents (workspace_id, slug)`)
  yield* sql.unsafe(`CREATE INDEX agents_workspace_order ON agents (workspace_id, created_at DESC, id DESC)`)
  yield* sql.unsafe(
    `CREATE INDEX agents_workspace_active ON agents (workspace_id, is_active, created_at DESC, id DESC)`
  )
})
