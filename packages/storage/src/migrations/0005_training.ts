import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { types } from "../shared/Columns.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = types(sql)
  yield* sql.unsafe(`CREATE TABLE training_folders (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX training_folders_workspace ON training_folders (workspace_id, created_at, id)`)
  // lease_until: while an item is processing, the worker that claimed it holds it until then.
  yield* sql.unsafe(`CREATE TABLE training_data (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    source TEXT,
    normalized_source TEXT,
    title TEXT,
    description TEXT,
    slug TEXT NOT NULL,
    content TEXT,
    question TEXT,
    answer TEXT,
    is_processed ${t.bool} NOT NULL,
    status TEXT NOT NULL,
    training_folder_id ${t.id} REFERENCES training_folders (id) ON DELETE SET NULL,
    lease_until ${t.ts},
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX training_data_order ON training_data (workspace_id, created_at DESC, id DESC)`)
  yield* sql.unsafe(`CREATE INDEX training_data_type ON training_data (workspace_id, type, created_at DESC, id DESC)`)
  yield* sql.unsafe(
    `CREATE INDEX training_data_status ON training_data (workspace_id, status, created_at DESC, id DESC)`
  )
  yield* sql.unsafe(`CREATE INDEX training_data_due ON training_data (status, created_at, id)`)
  yield* sql.unsafe(`CREATE INDEX training_data_source ON training_data (workspace_id, normalized_source)`)
  yield* sql.unsafe(`CREATE TABLE training_data_agents (
    training_data_id ${t.id} NOT NULL REFERENCES training_data (id) ON DELETE CASCADE,
    agent_id ${t.id} NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    position ${t.int} NOT NULL,
    PRIMARY KEY (training_data_id, agent_id)
  )`)
  yield* sql.unsafe(`CREATE INDEX training_data_agents_agent ON training_data_agents (agent_id)`)
  yield* sql.unsafe(`CREATE TABLE training_url_pages (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    training_data_id ${t.id} NOT NULL REFERENCES training_data (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    normalized_url TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX training_url_pages_item ON training_url_pages (training_data_id, created_at, id)`)
  yield* sql.unsafe(`CREATE INDEX training_url_pages_url ON training_url_pages (workspace_id, normalized_url)`)
})
