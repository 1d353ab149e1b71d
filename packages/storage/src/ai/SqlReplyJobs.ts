/**
 * The reply loop's jobs on `effect/sql` (migration 0026): claimed under a lease in one statement (PostgreSQL
 * skips rows another claimer locks), completed only while the claim holds, given back when a worker stops.
 */
import { AgentId, ConversationId, MessageId, ReplyJobId, ReplyJobs, WorkspaceId } from "@support-engine/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbInt, DbTimestamp, ts } from "../shared/Columns.js"
import { mapSqlError } from "../shared/SqlErrors.js"

const ClaimedRow = Schema.Struct({
  id: ReplyJobId,
  workspace_id: WorkspaceId,
  conversation_id: ConversationId,
  message_id: MessageId,
  agent_id: AgentId,
  attempts: DbInt,
  question: Schema.String,
  asked_at: DbTimestamp,
  locale: Schema.NullOr(Schema.String)
})

export const SqlReplyJobsLive: Layer.Layer<ReplyJobs, never, SqlClient.SqlClient> = Layer.effect(
  ReplyJobs,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * One statement: the due job is chosen and leased together. A job waits while an earlier job of its
     * conversation is pending, so replies come in the order of the messages; an expired lease is due again
     * (the lease end is its due time).
     */
    const claim = SqlSchema.findOneOption({
      Request: Schema.Struct({ now: Schema.String, lease: Schema.String, claimant: Schema.String }),
      Result: Schema.Struct({ id: ReplyJobId }),
      execute: (r) => {
        const lock = sql.onDialectOrElse({ pg: () => sql`FOR UPDATE OF j SKIP LOCKED`, orElse: () => sql`` })
        return sql`UPDATE reply_jobs SET claimed_by = ${r.claimant}, leased_until = ${r.lease}, due_at = ${r.lease},
            attempts = attempts + 1, updated_at = ${r.now}
            WHERE id = (SELECT j.id FROM reply_jobs j WHERE j.status = 'pending' AND j.due_at <= ${r.now}
              AND NOT EXISTS (SELECT 1 FROM reply_jobs o WHERE o.conversation_id = j.conversation_id
                AND o.status = 'pending' AND o.id < j.id)
              ORDER BY j.due_at, j.id LIMIT 1 ${lock})
            RETURNING id`
      }
    })

    const load = SqlSchema.findOneOption({
      Request: Schema.Struct({ id: ReplyJobId, claimant: Schema.String }),
      Result: ClaimedRow,
      execute: (r) =>
        sql`SELECT j.id, j.workspace_id, j.conversation_id, j.message_id, j.agent_id, j.attempts,
            m.content AS question, m.created_at AS asked_at, c.locale
            FROM reply_jobs j JOIN messages m ON m.id = j.message_id LEFT JOIN customers c ON c.id = m.customer_id
            WHERE j.id = ${r.id} AND j.claimed_by = ${r.claimant}`
    })

    const count = SqlSchema.findOne({
      Request: Schema.Struct({ workspace_id: WorkspaceId, conversation_id: ConversationId, agent_id: AgentId }),
      Result: Schema.Struct({ total: DbInt }),
      execute: (r) =>
        sql`SELECT COUNT(*) AS total FROM messages m JOIN conversations c ON c.id = m.conversation_id
            WHERE m.workspace_id = ${r.workspace_id} AND m.conversation_id = ${r.conversation_id}
            AND m.sender_type = 'agent' AND m.sender_id = ${r.agent_id}
            AND m.created_at >= COALESCE(c.reopened_at, c.created_at)`
    })

    return ReplyJobs.of({
      enqueue: (workspaceId, job) =>
        sql`INSERT INTO reply_jobs (id, workspace_id, conversation_id, message_id, agent_id, status, outcome,
            reply_message_id, attempts, due_at, claimed_by, leased_until, created_at, updated_at)
            VALUES (${job.id}, ${workspaceId}, ${job.conversationId}, ${job.messageId}, ${job.agentId}, 'pending',
            NULL, NULL, 0, ${ts(job.at)}, NULL, NULL, ${ts(job.at)}, ${ts(job.at)})
            ON CONFLICT (message_id) DO NOTHING`.pipe(Effect.asVoid, mapSqlError),
      claimNext: ({ claimant, leaseUntil, now }) =>
        Effect.gen(function*() {
          const claimed = yield* claim({ now: ts(now), lease: ts(leaseUntil), claimant })
          if (Option.isNone(claimed)) return Option.none()
          const row = yield* load({ id: claimed.value.id, claimant })
          return Option.map(row, (r) => ({
            id: r.id,
            workspaceId: r.workspace_id,
            conversationId: r.conversation_id,
            messageId: r.message_id,
            agentId: r.agent_id,
            claimant,
            attempts: r.attempts,
            question: r.question,
            askedAt: r.asked_at,
            locale: r.locale
          }))
        }).pipe(mapSqlError),
      complete: (job, outcome, at) => {
        const result = outcome._tag === "Replied"
          ? "replied"
          : outcome._tag === "HandedOff"
          ? outcome.reason
          : "skipped"
        const reply = outcome._tag === "Replied" ? outcome.messageId : null
        return sql`UPDATE reply_jobs SET status = 'done', outcome = ${result}, reply_message_id = ${reply},
            claimed_by = NULL, leased_until = NULL, updated_at = ${ts(at)}
            WHERE id = ${job.id} AND status = 'pending' AND claimed_by = ${job.claimant}
            AND attempts = ${job.attempts} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), mapSqlError)
      },
      release: (claimant, at) =>
        // A claim given back did not fail on the job: it does not count towards the handoff after repeated claims.
        sql`UPDATE reply_jobs SET claimed_by = NULL, leased_until = NULL, due_at = ${ts(at)}, attempts = attempts - 1
            WHERE claimed_by = ${claimant} AND status = 'pending' RETURNING id`.pipe(
          Effect.map((rows) => rows.length),
          mapSqlError
        ),
      repliesThisSession: (workspaceId, conversationId, agentId) =>
        count({ workspace_id: workspaceId, conversation_id: conversationId, agent_id: agentId }).pipe(
          Effect.map((r) => r.total),
          mapSqlError
        )
    })
  })
)
