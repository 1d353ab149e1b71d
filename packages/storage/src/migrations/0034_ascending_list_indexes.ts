/**
 * The indexes lists read by (workspace, [filter,] time, id) are kept in ascending order. Lists read them newest
 * first, which both databases do by walking an index backwards, as cheaply as forwards; but an index kept in
 * descending order receives every new row at the front of its range, where a full page splits in two half-full
 * pages again and again, rather than at the end, where the pages fill. Those indexes held about twice the pages
 * their keys need, and each new row wrote more of their pages to the log (a conversation has six such indexes, its
 * event two). Same names, same columns, same reads.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Each index: its name, its table and its columns (the last two are the list's time and id). */
const INDEXES: ReadonlyArray<readonly [name: string, table: string, columns: string]> = [
  ["events_workspace_order", "events", "workspace_id, occurred_at, id"],
  ["events_workspace_type_order", "events", "workspace_id, event, occurred_at, id"],
  ["companies_workspace_order", "companies", "workspace_id, created_at, id"],
  ["customers_workspace_order", "customers", "workspace_id, created_at, id"],
  ["customers_workspace_company", "customers", "workspace_id, company_id, created_at, id"],
  ["agents_workspace_order", "agents", "workspace_id, created_at, id"],
  ["agents_workspace_active", "agents", "workspace_id, is_active, created_at, id"],
  ["conversations_order", "conversations", "workspace_id, created_at, id"],
  ...["status", "priority", "channel", "customer_id", "assignee_id"].map((column) =>
    [`conversations_${column}`, "conversations", `workspace_id, ${column}, created_at, id`] as const
  ),
  ["messages_order", "messages", "workspace_id, sent_at, id"],
  ["messages_conversation", "messages", "workspace_id, conversation_id, sent_at, id"],
  ["messages_sender_type", "messages", "workspace_id, sender_type, sent_at, id"],
  ["training_data_order", "training_data", "workspace_id, created_at, id"],
  ["training_data_type", "training_data", "workspace_id, type, created_at, id"],
  ["training_data_status", "training_data", "workspace_id, status, created_at, id"],
  ["kb_articles_order", "kb_articles", "workspace_id, created_at, id"],
  ["kb_articles_status", "kb_articles", "workspace_id, status, created_at, id"],
  ["kb_revisions_article", "kb_article_revisions", "workspace_id, article_id, created_at, id"],
  ["webhooks_workspace_order", "webhooks", "workspace_id, created_at, id"],
  ["webhook_deliveries_webhook_order", "webhook_deliveries", "workspace_id, webhook_id, created_at, id"],
  [
    "webhook_deliveries_webhook_status_order",
    "webhook_deliveries",
    "workspace_id, webhook_id, status, created_at, id"
  ]
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const [name, table, columns] of INDEXES) {
    yield* sql.unsafe(`DROP INDEX ${name}`)
    yield* sql.unsafe(`CREATE INDEX ${name} ON ${table} (${columns})`)
  }
})
