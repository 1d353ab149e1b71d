import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { types } from "../shared/Columns.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = types(sql)
  // customer_id has no foreign key: deleting a customer keeps its conversations and messages.
  yield* sql.unsafe(`CREATE TABLE conversations (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    channel TEXT NOT NULL,
    customer_id ${t.id} NOT NULL,
    agent_id ${t.id},
    subject TEXT,
    status TEXT NOT NULL,
    priority TEXT NOT NULL,
    assignee_id ${t.id},
    assignee_type TEXT,
    tags ${t.json} NOT NULL,
    closed_at ${t.ts},
    first_response_at ${t.ts},
    last_message_at ${t.ts},
    is_spam ${t.bool} NOT NULL,
    spam_score ${t.int} NOT NULL,
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX conversations_order ON conversations (workspace_id, created_at DESC, id DESC)`)
  for (const column of ["status", "priority", "channel", "customer_id", "assignee_id"]) {
    yield* sql.unsafe(
      `CREATE INDEX conversations_${column} ON conversations (workspace_id, ${column}, created_at DESC, id DESC)`
    )
  }
  yield* sql.unsafe(`CREATE TABLE messages (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    conversation_id ${t.id} NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    sender_type TEXT NOT NULL,
    sender_id ${t.id},
    customer_id ${t.id} NOT NULL,
    content TEXT NOT NULL,
    sent_at ${t.ts} NOT NULL,
    is_internal ${t.bool} NOT NULL,
    addresses ${t.json} NOT NULL,
    email_status TEXT,
    email_error_message TEXT,
    created_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX messages_order ON messages (workspace_id, sent_at DESC, id DESC)`)
  yield* sql.unsafe(
    `CREATE INDEX messages_conversation ON messages (workspace_id, conversation_id, sent_at DESC, id DESC)`
  )
  yield* sql.unsafe(`CREATE INDEX messages_sender_type ON messages (workspace_id, sender_type, sent_at DESC, id DESC)`)
})
