/** The `RowLocks` port: `SELECT ... FOR UPDATE` on PostgreSQL; nothing on SQLite, whose writes are serial. */
import { RowLocks, type TaggedResource } from "@support-engine/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { mapSqlError } from "./SqlErrors.js"

// Table names come from this closed list only, never from input.
const tables: Record<TaggedResource, string> = {
  companies: "companies",
  customers: "customers",
  agents: "agents",
  conversations: "conversations",
  training_data: "training_data",
  kb_articles: "kb_articles",
  webhooks: "webhooks"
}

export const SqlRowLocksLive: Layer.Layer<RowLocks, never, SqlClient.SqlClient> = Layer.effect(
  RowLocks,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const hold = (resource: TaggedResource, workspaceId: string, id: string) =>
      sql`SELECT id FROM ${sql.literal(tables[resource])} WHERE workspace_id = ${workspaceId} AND id = ${id}
          FOR UPDATE`
    // The lock order (see `RowLocks`): a conversation's customer is held before the conversation. A conversation's
    // customer never changes, so reading it unlocked names the right row.
    const holdCustomerOf = (workspaceId: string, conversationId: string) =>
      sql`SELECT id FROM customers WHERE workspace_id = ${workspaceId} AND id = (SELECT customer_id
          FROM conversations WHERE workspace_id = ${workspaceId} AND id = ${conversationId}) FOR UPDATE OF customers`
    return RowLocks.of({
      lock: (resource, workspaceId, id) =>
        sql.onDialectOrElse({
          pg: () =>
            (resource === "conversations"
              ? Effect.andThen(holdCustomerOf(workspaceId, id), hold(resource, workspaceId, id))
              : hold(resource, workspaceId, id)).pipe(Effect.asVoid, mapSqlError),
          // SQLite: the one connection runs one transaction at a time, so a read and write in one are atomic.
          orElse: () => Effect.void
        })
    })
  })
)
