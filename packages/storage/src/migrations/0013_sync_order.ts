/**
 * Indexes for `updated_since` listings: oldest first by `updated_at`, then id, inside one workspace, so a
 * sync page reads its rows by index at any depth. Messages never change and sync by `created_at`; events and
 * revisions reuse their existing time indexes (read in the other direction).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const indexes: ReadonlyArray<readonly [name: string, table: string, columns: string]> = [
  ["companies_sync", "companies", "workspace_id, updated_at, id"],
  ["customers_sync", "customers", "workspace_id, updated_at, id"],
  ["agents_sync", "agents", "workspace_id, updated_at, id"],
  ["conversations_sync", "conversations", "workspace_id, updated_at, id"],
  ["messages_sync", "messages", "workspace_id, created_at, id"],
  ["training_data_sync", "training_data", "workspace_id, updated_at, id"],
  ["kb_articles_sync", "kb_articles", "workspace_id, updated_at, id"],
  ["webhooks_sync", "webhooks", "workspace_id, updated_at, id"],
  ["webhook_deliveries_sync", "webhook_deliveries", "workspace_id, webhook_id, updated_at, id"]
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const [name, table, columns] of indexes) {
    yield* sql.unsafe(`CREATE INDEX ${name} ON ${table} (${columns})`)
  }
})
