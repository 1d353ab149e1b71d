/** Conversations and messages on `effect/sql`. */
import {
  AgentId,
  AssigneeType,
  Citation,
  Conversation,
  ConversationChannel,
  ConversationId,
  ConversationPriority,
  ConversationRepo,
  ConversationStatus,
  CustomerId,
  Message,
  MessageId,
  MessageRepo,
  Model,
  SenderType,
  WorkspaceId
} from "@support-engine/core"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbBoolean, DbInt, DbJson, DbTimestamp, params, ts, tsOrNull } from "../shared/Columns.js"
import { Counters } from "../shared/Counters.js"
import { keyset, totalOf, WindowFields, windowOf } from "../shared/Keyset.js"
import { limit as limitClause } from "../shared/Limit.js"
import { mapSqlError } from "../shared/SqlErrors.js"
import { matchExpression } from "../shared/TextSearch.js"

const ConversationRow = Schema.Struct({
  id: ConversationId,
  channel: ConversationChannel,
  customer_id: CustomerId,
  agent_id: Schema.NullOr(AgentId),
  subject: Schema.NullOr(Schema.String),
  status: ConversationStatus,
  priority: ConversationPriority,
  assignee_id: Conversation.fields.assignee_id,
  assignee_type: Schema.NullOr(AssigneeType),
  tags: DbJson(Schema.Array(Schema.String)),
  closed_at: Model.nullFirst(DbTimestamp),
  first_response_at: Model.nullFirst(DbTimestamp),
  last_message_at: Model.nullFirst(DbTimestamp),
  is_spam: DbBoolean,
  spam_score: DbInt,
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})

const Addresses = Schema.Struct({
  from: Schema.Array(Schema.String),
  to: Schema.Array(Schema.String),
  cc: Schema.Array(Schema.String),
  bcc: Schema.Array(Schema.String)
})

const MessageRow = Schema.Struct({
  id: MessageId,
  conversation_id: ConversationId,
  sender_type: SenderType,
  sender_id: Message.fields.sender_id,
  customer_id: CustomerId,
  content: Schema.String,
  sent_at: DbTimestamp,
  is_internal: DbBoolean,
  addresses: DbJson(Addresses),
  email_status: Schema.NullOr(Schema.String),
  email_error_message: Schema.NullOr(Schema.String),
  citations: Model.nullFirst(DbJson(Schema.Array(Citation))),
  created_at: DbTimestamp
})
const encodeCitations = Schema.encodeSync(Schema.Array(Citation))

const CONVERSATIONS = "conversations"
const MESSAGES = "messages"
const toConversation = (row: typeof ConversationRow.Type) => new Conversation(row, { disableChecks: true })
const toMessage = ({ addresses, citations, ...row }: typeof MessageRow.Type) =>
  new Message({ ...row, ...addresses, citations: citations ?? [] }, { disableChecks: true })

const ConversationFilter = Schema.Struct({
  workspace_id: WorkspaceId,
  status: Schema.optional(Schema.String),
  priority: Schema.optional(Schema.String),
  channel: Schema.optional(Schema.String),
  customer_id: Schema.optional(Schema.String),
  assignee_id: Schema.optional(Schema.String)
})
const MessageFilter = Schema.Struct({
  workspace_id: WorkspaceId,
  sender_type: Schema.optional(Schema.String),
  conversation_id: Schema.optional(Schema.String)
})

const CONVERSATION_ORDER = { newest: "created_at", updated: "updated_at" }
// Messages are listed by `sent_at`, newest first, which a client may set in the past; they are never edited, so sync
// (`updated_since`) follows `created_at`, the time the engine stored them.
const MESSAGE_ORDER = { newest: "sent_at", updated: "created_at" }

export const SqlConversationRepoLive: Layer.Layer<
  ConversationRepo | MessageRepo,
  never,
  SqlClient.SqlClient | Counters
> = Layer.effectContext(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const counters = yield* Counters
  const p = params(sql)

  const equals = (filters: Record<string, string | undefined>) =>
    Object.entries(filters).flatMap(([column, value]) => value === undefined ? [] : [sql`${sql(column)} = ${value}`])

  const findConversation = SqlSchema.findOneOption({
    Request: Schema.Struct({ workspace_id: WorkspaceId, id: ConversationId }),
    Result: ConversationRow,
    execute: (r) => sql`SELECT * FROM conversations WHERE workspace_id = ${r.workspace_id} AND id = ${r.id}`
  })
  const conversationPage = SqlSchema.findAll({
    Request: Schema.Struct({ ...ConversationFilter.fields, ...WindowFields }),
    Result: ConversationRow,
    execute: ({ after_at, after_id, limit, offset, order, since, workspace_id, ...filters }) =>
      sql`SELECT * FROM conversations WHERE ${sql.and([sql`workspace_id = ${workspace_id}`, ...equals(filters)])}
          ${keyset(sql, { after_at, after_id, limit, offset, order, since }, CONVERSATION_ORDER)}`
  })
  const conversationCount = SqlSchema.findOne({
    Request: ConversationFilter,
    Result: Schema.Struct({ total: DbInt }),
    execute: ({ workspace_id, ...filters }) =>
      sql`SELECT COUNT(*) AS total FROM conversations
          WHERE ${sql.and([sql`workspace_id = ${workspace_id}`, ...equals(filters)])}`
  })
  // Search: conversations whose subject or any message matches (migration 0015), best match first. Scores
  // are comparable within a dialect only: bm25 (lower is better) on SQLite, negated ts_rank on PostgreSQL.
  // PostgreSQL folds the query's diacritics as it folds the documents (migration 0033); SQLite's tokenizer folds both.
  const SearchRequest = Schema.Struct({ ...ConversationFilter.fields, match: Schema.String })
  const hits = (match: string) =>
    sql.onDialectOrElse({
      pg: () => {
        const query = sql`to_tsquery('simple', support_search_fold(${match}))`
        return sql`SELECT s.id AS conversation_id, -ts_rank(s.document, ${query}) AS score
            FROM conversation_text_search s WHERE s.document @@ ${query}
            UNION ALL
            SELECT s.conversation_id, -ts_rank(s.document, ${query})
            FROM message_text_search s WHERE s.document @@ ${query}`
      },
      orElse: () =>
        sql`SELECT k.id AS conversation_id, bm25(conversation_text_search) AS score FROM conversation_text_search
            JOIN conversation_text_search_keys k ON k.search_rowid = conversation_text_search.rowid
            WHERE conversation_text_search MATCH ${match}
            UNION ALL
            SELECT k.conversation_id, bm25(message_text_search) FROM message_text_search
            JOIN message_text_search_keys k ON k.search_rowid = message_text_search.rowid
            WHERE message_text_search MATCH ${match}`
    })
  const searchBody = ({ match, workspace_id, ...filters }: typeof SearchRequest.Encoded) =>
    sql`(SELECT conversation_id, MIN(score) AS score FROM (${hits(match)}) hits GROUP BY conversation_id) best
        JOIN conversations c ON c.id = best.conversation_id
        WHERE ${
      sql.and([
        sql`c.workspace_id = ${workspace_id}`,
        ...Object.entries(filters).flatMap(([column, value]) =>
          value === undefined ? [] : [sql`${sql.literal(`c.${column}`)} = ${value}`]
        )
      ])
    }`
  const searchPage = SqlSchema.findAll({
    Request: Schema.Struct({ ...SearchRequest.fields, limit: Schema.Int, offset: Schema.Int }),
    Result: ConversationRow,
    execute: ({ limit, offset, ...request }) =>
      sql`SELECT c.* FROM ${searchBody(request)}
          ORDER BY best.score, c.created_at DESC, c.id DESC ${limitClause(sql, limit, offset)}`
  })
  const searchCount = SqlSchema.findOne({
    Request: SearchRequest,
    Result: Schema.Struct({ total: DbInt }),
    execute: (request) => sql`SELECT COUNT(*) AS total FROM ${searchBody(request)}`
  })
  const messagePage = SqlSchema.findAll({
    Request: Schema.Struct({ ...MessageFilter.fields, ...WindowFields }),
    Result: MessageRow,
    execute: ({ after_at, after_id, limit, offset, order, since, workspace_id, ...filters }) =>
      sql`SELECT * FROM messages WHERE ${sql.and([sql`workspace_id = ${workspace_id}`, ...equals(filters)])}
          ${keyset(sql, { after_at, after_id, limit, offset, order, since }, MESSAGE_ORDER)}`
  })
  const messageCount = SqlSchema.findOne({
    Request: MessageFilter,
    Result: Schema.Struct({ total: DbInt }),
    execute: ({ workspace_id, ...filters }) =>
      sql`SELECT COUNT(*) AS total FROM messages
          WHERE ${sql.and([sql`workspace_id = ${workspace_id}`, ...equals(filters)])}`
  })

  const isFiltered = (filter: object) => Object.values(filter).some((v) => v !== undefined)

  const conversations = ConversationRepo.of({
    insert: (workspaceId, c) =>
      Effect.andThen(
        sql`INSERT INTO conversations (id, workspace_id, channel, customer_id, agent_id, subject, status, priority,
          assignee_id, assignee_type, tags, closed_at, first_response_at, last_message_at, is_spam, spam_score,
          created_at, updated_at) VALUES (${c.id}, ${workspaceId}, ${c.channel}, ${c.customer_id}, ${c.agent_id},
          ${c.subject}, ${c.status}, ${c.priority}, ${c.assignee_id}, ${c.assignee_type}, ${p.json(c.tags)},
          ${tsOrNull(c.closed_at)}, ${tsOrNull(c.first_response_at)}, ${tsOrNull(c.last_message_at)},
          ${p.bool(c.is_spam)}, ${c.spam_score}, ${ts(c.created_at)}, ${ts(c.updated_at)})`.pipe(mapSqlError),
        counters.add(workspaceId, CONVERSATIONS, 1)
      ),
    update: (workspaceId, c) =>
      // Opening a closed conversation starts a new session for an AI agent's message limit.
      sql`UPDATE conversations SET ${
        c.status === "open"
          ? sql`reopened_at = CASE WHEN status = 'closed' THEN ${ts(c.updated_at)} ELSE reopened_at END,`
          : sql``
      } agent_id = ${c.agent_id}, subject = ${c.subject}, status = ${c.status},
          priority = ${c.priority}, assignee_id = ${c.assignee_id}, assignee_type = ${c.assignee_type},
          tags = ${p.json(c.tags)}, closed_at = ${tsOrNull(c.closed_at)},
          first_response_at = ${tsOrNull(c.first_response_at)}, last_message_at = ${tsOrNull(c.last_message_at)},
          is_spam = ${p.bool(c.is_spam)}, spam_score = ${c.spam_score}, updated_at = ${ts(c.updated_at)}
          WHERE workspace_id = ${workspaceId} AND id = ${c.id}`.pipe(Effect.asVoid, mapSqlError),
    findById: (workspaceId, id) =>
      findConversation({ workspace_id: workspaceId, id }).pipe(Effect.map(Option.map(toConversation)), mapSqlError),
    delete: (workspaceId, id) =>
      Effect.gen(function*() {
        const removed = yield* sql`DELETE FROM messages WHERE workspace_id = ${workspaceId}
          AND conversation_id = ${id} RETURNING id`.pipe(mapSqlError)
        if (removed.length > 0) yield* counters.add(workspaceId, MESSAGES, -removed.length)
        const rows = yield* sql`DELETE FROM conversations WHERE workspace_id = ${workspaceId} AND id = ${id}
          RETURNING id`.pipe(mapSqlError)
        if (rows.length === 0) return false
        yield* counters.add(workspaceId, CONVERSATIONS, -1)
        return true
      }),
    list: (workspaceId, { terms, ...filter }, slice) => {
      if (terms !== undefined) {
        const search = { workspace_id: workspaceId, ...filter, match: matchExpression(sql, terms) }
        return Effect.all({
          items: searchPage({ ...search, limit: slice.limit, offset: slice.offset }).pipe(
            Effect.map((rows) => rows.map(toConversation)),
            mapSqlError
          ),
          total: searchCount(search).pipe(Effect.map((r) => r.total), mapSqlError)
        })
      }
      return Effect.all({
        items: conversationPage({ workspace_id: workspaceId, ...filter, ...windowOf(slice) }).pipe(
          Effect.map((rows) => rows.map(toConversation)),
          mapSqlError
        ),
        total: totalOf(
          slice,
          isFiltered(filter)
            ? conversationCount({ workspace_id: workspaceId, ...filter }).pipe(Effect.map((r) => r.total), mapSqlError)
            : counters.get(workspaceId, CONVERSATIONS)
        )
      })
    }
  })

  const messages = MessageRepo.of({
    insert: (workspaceId, m) =>
      Effect.andThen(
        sql`INSERT INTO messages (id, workspace_id, conversation_id, sender_type, sender_id, customer_id, content,
          sent_at, is_internal, addresses, email_status, email_error_message, citations, created_at) VALUES (${m.id},
          ${workspaceId}, ${m.conversation_id}, ${m.sender_type}, ${m.sender_id}, ${m.customer_id}, ${m.content},
          ${ts(m.sent_at)}, ${p.bool(m.is_internal)}, ${p.json({ from: m.from, to: m.to, cc: m.cc, bcc: m.bcc })},
          ${m.email_status}, ${m.email_error_message},
          ${m.citations.length === 0 ? null : p.json(encodeCitations(m.citations))}, ${ts(m.created_at)})`.pipe(
          mapSqlError
        ),
        counters.add(workspaceId, MESSAGES, 1)
      ),
    delete: (workspaceId, id) =>
      sql`DELETE FROM messages WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`.pipe(
        mapSqlError,
        Effect.flatMap((rows) =>
          rows.length === 0 ? Effect.succeed(false) : Effect.as(counters.add(workspaceId, MESSAGES, -1), true)
        )
      ),
    list: (workspaceId, filter, slice) =>
      Effect.all({
        items: messagePage({ workspace_id: workspaceId, ...filter, ...windowOf(slice) }).pipe(
          Effect.map((rows) => rows.map(toMessage)),
          mapSqlError
        ),
        total: totalOf(
          slice,
          isFiltered(filter)
            ? messageCount({ workspace_id: workspaceId, ...filter }).pipe(Effect.map((r) => r.total), mapSqlError)
            : counters.get(workspaceId, MESSAGES)
        )
      })
  })

  return Context.make(ConversationRepo, conversations).pipe(Context.add(MessageRepo, messages))
}))
