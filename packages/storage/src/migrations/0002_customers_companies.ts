import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { types } from "../shared/Columns.js"

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
  // company_id: deleting a company leaves its customers working, unlinked.
  // email_normalized: lower-cased email, unique per workspace; NULLs do not collide.
  yield* sql.unsafe(`CREATE TABLE customers (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    first_name TEXT,
    last_name TEXT,
    email TEXT,
    email_normalized TEXT,
    phone TEXT,
    locale TEXT,
    country TEXT,
    company_id ${t.id} REFERENCES companies (id) ON DELETE SET NULL,
    avatar_url TEXT,
    first_seen_at ${t.ts} NOT NULL,
    last_seen_at ${t.ts} NOT NULL,
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX customers_workspace_order ON customers (workspace_id, created_at DESC, id DESC)`)
  yield* sql.unsafe(
    `CREATE INDEX customers_workspace_company ON customers (workspace_id, company_id, created_at DESC, id DESC)`
  )
  yield* sql.unsafe(`CREATE UNIQUE INDEX customers_workspace_email ON customers (workspace_id, email_normalized)`)
})
