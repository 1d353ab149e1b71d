/**
 * A customer's erasure on `effect/sql`, in the caller's transaction.
 *
 * What goes: the customer, their conversations and messages, the reply jobs of those conversations, the search
 * documents of all three (SQLite's FTS5 rows through the tables' delete triggers, PostgreSQL's by cascade), and the
 * stored answers of idempotency keys that name the customer or one of their conversations (a replay would otherwise
 * hand their data back). What stays, emptied: the events whose data names the customer or one of their
 * conversations (every `customer.*` event of theirs, every event of their conversations and messages) keep their
 * envelope with data `{"redacted": true}`; those events' pending fan-outs are dropped and their pending deliveries
 * cancelled, and the receivers' answers kept in the attempt logs of their deliveries are cleared, since a receiver
 * may echo what it was sent.
 *
 * PostgreSQL: the rows are held in the order every writer takes them (`RowLocks`): the customer, then their
 * conversations, then the messages and reply jobs under those, the workspace's counters last; the workspace's
 * subscriptions lock (shared) before any pending fan-out marker, as every writer of markers. Holding the customer
 * first fixes the set of their conversations (a creation holds the customer) and keeps out new messages (posting
 * one holds the conversation, and so its customer, first); a writer already under way finishes first, a later one
 * waits, then finds nothing. SQLite runs one transaction at a time.
 */
import type { CustomerId, ErasedCounts, PersistenceError, WorkspaceId } from "@support-engine/core"
import { Array as Arr, type DateTime, Effect, Option, Schema } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import { params, ts } from "../shared/Columns.js"
import type { Counters } from "../shared/Counters.js"
import { toPersistenceError } from "../shared/SqlErrors.js"
import { holdSubscriptionsShared } from "../webhooks/SqlFanOut.js"

/** Conversation ids per statement that matches their text (one `LIKE` each). */
const PATTERNS_PER_STATEMENT = 100
/** Event ids per statement that acts on them. */
const IDS_PER_STATEMENT = 500

const Ids = Schema.Array(Schema.Struct({ id: Schema.String }))
const decodeIds = Schema.decodeUnknownEffect(Ids)

/** What an event's data is replaced with. */
const REDACTED = { redacted: true } as const

export const makeErasure = (sql: SqlClient.SqlClient, counters: Counters["Service"]) => {
  const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const forUpdate = isPg ? sql`FOR UPDATE` : sql``
  // PostgreSQL keeps event data as JSON, whose text is the data as written; SQLite keeps that text itself.
  const eventText = isPg ? sql`data::text` : sql`data`
  const redacted = params(sql).json(REDACTED)

  const ids = <E, R>(self: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
    Effect.flatMap(self, (rows) => decodeIds(rows)).pipe(Effect.map((rows) => rows.map((r) => r.id)))

  /** Rows whose text holds one of `needles` (ids: no `LIKE` wildcard can occur in them). */
  const mentions = (column: Statement.Fragment, needles: ReadonlyArray<string>) =>
    sql.or(needles.map((needle) => sql`${column} LIKE ${`%${needle}%`}`))

  const erase = (workspaceId: WorkspaceId, id: CustomerId, at: DateTime.Utc) =>
    Effect.gen(function*() {
      const theirConversations = sql`SELECT id FROM conversations WHERE workspace_id = ${workspaceId}
        AND customer_id = ${id}`
      // The customer, then their conversations: the lock order of every writer (`RowLocks`).
      const customer = yield* ids(sql`SELECT id FROM customers WHERE workspace_id = ${workspaceId} AND id = ${id}
        ${forUpdate}`)
      if (customer.length === 0) return Option.none<ErasedCounts>()
      const conversationIds: ReadonlyArray<string> = yield* ids(sql`${theirConversations} ${forUpdate}`)

      // Events first, while their conversations still exist to be named.
      const needles = [id, ...conversationIds]
      const redactedIds: Array<string> = []
      for (const chunk of Arr.chunksOf(needles, PATTERNS_PER_STATEMENT)) {
        redactedIds.push(
          ...yield* ids(sql`UPDATE events SET data = ${redacted} WHERE workspace_id = ${workspaceId}
            AND (${mentions(eventText, chunk)}) RETURNING id`)
        )
      }
      // Before their pending fan-outs are dropped: the order of every writer of those markers.
      if (redactedIds.length > 0) yield* holdSubscriptionsShared(sql, workspaceId)
      for (const chunk of Arr.chunksOf(redactedIds, IDS_PER_STATEMENT)) {
        // Markers first: a fan-out holding one finishes before this goes on, and its deliveries are cancelled below.
        yield* sql`DELETE FROM pending_fanouts WHERE ${sql.in("event_id", chunk)}`
        yield* sql`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, claimed_by = NULL,
          leased_until = NULL, updated_at = ${ts(at)} WHERE ${sql.in("event_id", chunk)} AND status = 'pending'`
        yield* sql`UPDATE webhook_delivery_attempts SET response_excerpt = NULL
          WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE ${sql.in("event_id", chunk)})
          AND response_excerpt IS NOT NULL`
      }
      for (const chunk of Arr.chunksOf(needles, PATTERNS_PER_STATEMENT)) {
        yield* sql`DELETE FROM idempotency_keys WHERE workspace_id = ${workspaceId} AND (${mentions(sql`body`, chunk)})`
      }

      // Explicit deletes (rather than cascades) so SQLite's search triggers see every row. Messages before reply
      // jobs, the lock order: deleting a message deletes its job.
      const messages = yield* ids(sql`DELETE FROM messages WHERE workspace_id = ${workspaceId}
        AND conversation_id IN (${theirConversations}) RETURNING id`)
      yield* sql`DELETE FROM reply_jobs WHERE workspace_id = ${workspaceId}
        AND conversation_id IN (${theirConversations})`
      const conversations = yield* ids(sql`DELETE FROM conversations WHERE workspace_id = ${workspaceId}
        AND customer_id = ${id} RETURNING id`)
      yield* sql`DELETE FROM customers WHERE workspace_id = ${workspaceId} AND id = ${id}`
      // Counters last: every writer of the workspace takes them, and none waits on this erasure's rows meanwhile.
      if (messages.length > 0) yield* counters.add(workspaceId, "messages", -messages.length)
      if (conversations.length > 0) yield* counters.add(workspaceId, "conversations", -conversations.length)
      yield* counters.add(workspaceId, "customers", -1)
      return Option.some<ErasedCounts>({
        conversations: conversations.length,
        messages: messages.length,
        events_redacted: redactedIds.length
      })
    }).pipe(
      Effect.mapError((error): PersistenceError =>
        error._tag === "PersistenceError" ? error : toPersistenceError(error)
      )
    )

  return { erase } as const
}
