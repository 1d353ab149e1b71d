/**
 * The AI reply loop: a reply job per customer message an agent should answer, enqueued in the message's
 * transaction and leased by the reply workers like webhook deliveries; the read-only `citations` of agent messages;
 * and when a conversation was last reopened, which starts a new session for the agent's message limit.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { types } from "../shared/Columns.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = types(sql)
  // Null for every message but an agent's reply with sources: reading a message list parses no JSON for them.
  yield* sql.unsafe(`ALTER TABLE messages ADD COLUMN citations ${t.json}`)
  // Null until a closed conversation is opened again: the session then starts at created_at.
  yield* sql.unsafe(`ALTER TABLE conversations ADD COLUMN reopened_at ${t.ts}`)
  // One job per customer message (UNIQUE message_id), so a message is answered at most once whatever crashes: the
  // reply is written in the transaction that marks the job done, and only while the claim still holds.
  yield* sql.unsafe(`CREATE TABLE reply_jobs (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    conversation_id ${t.id} NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    message_id ${t.id} NOT NULL UNIQUE REFERENCES messages (id) ON DELETE CASCADE,
    agent_id ${t.id} NOT NULL,
    status TEXT NOT NULL,
    outcome TEXT,
    reply_message_id ${t.id},
    attempts ${t.int} NOT NULL,
    due_at ${t.ts} NOT NULL,
    claimed_by TEXT,
    leased_until ${t.ts},
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX reply_jobs_due ON reply_jobs (status, due_at, id)`)
  yield* sql.unsafe(`CREATE INDEX reply_jobs_conversation ON reply_jobs (conversation_id, status, id)`)
})
