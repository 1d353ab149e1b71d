/**
 * Storage port of the AI reply loop's jobs: one job per customer message an agent should answer, enqueued in
 * the message's transaction and leased to one worker at a time, so processes sharing one PostgreSQL database never
 * answer the same message twice.
 */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { PersistenceError } from "../shared/Errors.js"
import type { AgentId, ConversationId, MessageId, ReplyJobId, WorkspaceId } from "../shared/Ids.js"

export interface NewReplyJob {
  readonly id: ReplyJobId
  readonly conversationId: ConversationId
  readonly messageId: MessageId
  readonly agentId: AgentId
  readonly at: DateTime.Utc
}

/** A job as its worker claimed it, with the customer's message and locale. */
export interface ClaimedReplyJob {
  readonly id: ReplyJobId
  readonly workspaceId: WorkspaceId
  readonly conversationId: ConversationId
  readonly messageId: MessageId
  readonly agentId: AgentId
  readonly claimant: string
  /** Claims so far, this one included. */
  readonly attempts: number
  readonly question: string
  /** When the engine stored the customer's message: the model's history ends there. */
  readonly askedAt: DateTime.Utc
  readonly locale: string | null
}

/** How a job ended: a reply was posted, the conversation was handed off, or there was nothing to do. */
export type ReplyOutcome =
  | { readonly _tag: "Replied"; readonly messageId: MessageId }
  | { readonly _tag: "HandedOff"; readonly reason: string }
  | { readonly _tag: "Skipped" }

export class ReplyJobs extends Context.Service<ReplyJobs, {
  /** Adds the job in the caller's transaction; a second job for the same message is ignored. */
  readonly enqueue: (workspaceId: WorkspaceId, job: NewReplyJob) => Effect.Effect<void, PersistenceError>
  /**
   * Leases the oldest due job across every workspace until `leaseUntil`: a pending job whose earlier jobs of the
   * same conversation are all done (replies keep the order of the messages), or one whose lease expired (its
   * worker died). One claimer wins per job; on PostgreSQL, concurrent claimers skip each other's rows.
   */
  readonly claimNext: (request: {
    readonly claimant: string
    readonly now: DateTime.Utc
    readonly leaseUntil: DateTime.Utc
  }) => Effect.Effect<Option.Option<ClaimedReplyJob>, PersistenceError>
  /**
   * Marks the job done, in the caller's transaction, only while the claim holds (not expired and taken by
   * another worker, not already done). False when it does not hold: the caller must then write nothing.
   */
  readonly complete: (
    job: ClaimedReplyJob,
    outcome: ReplyOutcome,
    at: DateTime.Utc
  ) => Effect.Effect<boolean, PersistenceError>
  /** Gives back the claimant's leases (a worker stopping): its jobs are due again at `at`, the claim uncounted. */
  readonly release: (claimant: string, at: DateTime.Utc) => Effect.Effect<number, PersistenceError>
  /** The agent's messages in the conversation since it was last opened (created, or reopened after closing). */
  readonly repliesThisSession: (
    workspaceId: WorkspaceId,
    conversationId: ConversationId,
    agentId: AgentId
  ) => Effect.Effect<number, PersistenceError>
}>()("@support-engine/core/ReplyJobs") {}
