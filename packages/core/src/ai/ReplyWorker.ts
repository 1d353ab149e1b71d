/**
 * The AI reply loop's worker: claims reply jobs under a lease, answers each customer message with
 * `AgentAnswers` outside any transaction, then writes the reply (or the handoff) and completes the job in one
 * transaction, only while its claim holds, so each customer message gets at most one reply whatever crashes.
 */
import { Context, DateTime, Duration, Effect, Layer, Option } from "effect"
import type { Agent } from "../agents/Agent.js"
import { AgentRepo } from "../agents/AgentRepo.js"
import type { Conversation } from "../conversations/Conversation.js"
import { ConversationRepo, MessageRepo } from "../conversations/ConversationRepo.js"
import { Message } from "../conversations/Message.js"
import { Messages } from "../conversations/Messages.js"
import { Events } from "../events/Events.js"
import type { PersistenceError } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { MessageId } from "../shared/Ids.js"
import { withIdStream } from "../shared/IdStreams.js"
import { RowLocks } from "../shared/Preconditions.js"
import { Actor, Principal, type PrincipalShape } from "../shared/Principal.js"
import { now } from "../shared/Timestamp.js"
import { Transactor } from "../shared/Transactor.js"
import { WorkspaceRepo } from "../workspaces/WorkspaceRepo.js"
import { AgentAnswers, type Outcome } from "./AgentAnswers.js"
import { Escalation } from "./Answer.js"
import { makeHandoff } from "./Handoff.js"
import { type ClaimedReplyJob, ReplyJobs, type ReplyOutcome } from "./ReplyJobs.js"
import { countReply } from "./ReplyMetrics.js"
import { ReplySignal } from "./ReplySignal.js"
import { extractiveSummary, readTranscript, toLine } from "./Summary.js"

/**
 * How long a claimed job stays leased to one worker: longer than the model's budget below plus the writes, so a live
 * worker always finishes first; a worker that died lets it expire.
 */
export const REPLY_LEASE = Duration.minutes(3)
/**
 * How long the model may work on one job, all its calls together: the rule check, the answer and its redraft, each
 * with its own timeout and retries, then a handoff's summary. Past it the conversation goes to a person (reason
 * `model_error`) with the summary quoted from the conversation, well before the lease could pass to another worker.
 */
export const REPLY_MODEL_BUDGET = Duration.minutes(2)
/**
 * Claims of one job that may end without finishing (their workers crashed or lost the database) before the next
 * claim hands the conversation to a person instead of trying once more: a message that brings its workers down
 * must not keep its conversation, and the conversation's later messages, waiting for ever.
 */
export const MAX_REPLY_ATTEMPTS = 3
/**
 * The worker's ids (its claimant, its replies and handoffs) come from a stream of their own (IdStreams.ts): they do
 * not depend on when the worker draws against the request that woke it.
 */
const REPLY_STREAM = "reply-worker"
/** Messages of the conversation handed to the model as its history. */
const HISTORY = 20

/** An agent that answers customers by itself. Copilots never do. */
export const answersCustomers = (agent: Agent): boolean => agent.is_active && agent.auto_reply && !agent.is_copilot

/** The conversation is still the agent's to answer: open, not spam, assigned to it. */
const stillAnswering = (conversation: Conversation, agent: Agent): boolean =>
  conversation.status === "open" && !conversation.is_spam && conversation.assignee_type === "agent" &&
  conversation.assignee_id === agent.id

const handoff = (reason: Escalation["reason"]): Outcome => ({
  _tag: "Handoff",
  escalation: new Escalation({ reason, rule_id: null, escalate_to: null })
})

type Prepared =
  | { readonly _tag: "Skip" }
  | {
    readonly _tag: "Act"
    readonly agent: Agent
    readonly principal: PrincipalShape
    readonly outcome: Outcome
    /** The conversation's summary, for a handoff's event (made here, outside the transaction: it may call the model). */
    readonly summary: string
  }
const skip: Prepared = { _tag: "Skip" }

export class ReplyWorker extends Context.Service<ReplyWorker>()("@support-engine/core/ReplyWorker", {
  make: Effect.gen(function*() {
    const jobs = yield* ReplyJobs
    const workspaces = yield* WorkspaceRepo
    const conversations = yield* ConversationRepo
    const messageRepo = yield* MessageRepo
    const agents = yield* AgentRepo
    const answers = yield* AgentAnswers
    const messages = yield* Messages
    const tx = yield* Transactor
    const locks = yield* RowLocks
    const ids = yield* IdGenerator
    const handOff = yield* makeHandoff
    // One claimant per worker: a lease names the worker that holds it, and `release` gives back only its own.
    const claimant = yield* ids.uuid

    /** What the agent does about the message, decided outside any transaction (the model may take seconds). */
    const prepare = (job: ClaimedReplyJob) =>
      Effect.gen(function*() {
        const deadline = DateTime.addDuration(yield* now, REPLY_MODEL_BUDGET)
        const workspace = yield* workspaces.findById(job.workspaceId)
        const conversation = yield* conversations.findById(job.workspaceId, job.conversationId)
        const agent = yield* agents.findById(job.workspaceId, job.agentId)
        if (Option.isNone(workspace) || Option.isNone(conversation) || Option.isNone(agent)) {
          return skip
        }
        if (!answersCustomers(agent.value) || !stillAnswering(conversation.value, agent.value)) {
          return skip
        }
        const principal: PrincipalShape = {
          ...Principal.system(job.workspaceId, workspace.value.organization_id),
          actor: Actor.agent(agent.value.id)
        }
        const act = (outcome: Outcome): Effect.Effect<Prepared, PersistenceError, MessageRepo> =>
          outcome._tag === "Answer"
            ? Effect.succeed({ _tag: "Act", agent: agent.value, principal, outcome, summary: "" })
            : readTranscript(job.workspaceId, job.conversationId).pipe(
              // The message handed off is what is still open, whatever the order of messages of the same instant.
              Effect.map((t) =>
                [...t.filter((m) => m.id !== job.messageId), ...t.filter((m) => m.id === job.messageId)].map(toLine)
              ),
              // A model that just failed is not asked again for the summary: the quoted one is used at once, as it
              // is when the model's budget for this job runs out before the summary is written.
              Effect.flatMap((transcript) =>
                Effect.flatMap(now, (at) => {
                  const left = DateTime.distance(at, deadline)
                  return outcome.escalation.reason === "model_error" || !Duration.isPositive(left)
                    ? Effect.succeed(extractiveSummary(transcript))
                    : answers.summarize(agent.value, transcript, job.locale).pipe(
                      Effect.timeoutOrElse({
                        duration: left,
                        orElse: () => Effect.succeed(extractiveSummary(transcript))
                      })
                    )
                })
              ),
              Effect.map((summary) => ({ _tag: "Act", agent: agent.value, principal, outcome, summary }))
            )
        if (job.attempts > MAX_REPLY_ATTEMPTS) {
          yield* Effect.logWarning("reply job handed off after repeated unfinished attempts", job.id)
          return yield* act(handoff("model_error"))
        }
        // The contract's order: the message limit first, then the rules of the channel, retrieval and the answer.
        const sent = yield* jobs.repliesThisSession(job.workspaceId, job.conversationId, job.agentId)
        if (sent >= agent.value.max_messages_per_session) return yield* act(handoff("usage_limit"))

        const recent = yield* messageRepo.list(job.workspaceId, { conversation_id: job.conversationId }, {
          limit: HISTORY + 1,
          offset: 0,
          count: false
        })
        // A later customer message has its own job and reply, so it is not part of this one's history; replies
        // made since (the agent's answer to the message before) are.
        const history = recent.items
          .filter((m) =>
            m.id !== job.messageId && !m.is_internal && m.sender_type !== "system" &&
            (m.sender_type !== "customer" || DateTime.isLessThanOrEqualTo(m.created_at, job.askedAt))
          )
          .slice(0, HISTORY)
          .reverse()
          .map((m) => ({
            role: m.sender_type === "customer" ? "customer" as const : "agent" as const,
            content: m.content
          }))
        const outcome = yield* answers.answer(job.workspaceId, agent.value, {
          question: job.question,
          channel: conversation.value.channel,
          locale: job.locale,
          history
        }).pipe(
          // The model may be the host's code: if it dies, the conversation goes to a person instead of the worker.
          Effect.catchDefect((defect) =>
            Effect.as(Effect.logWarning("AI agent model died", defect), handoff("model_error"))
          ),
          Effect.timeoutOrElse({
            duration: REPLY_MODEL_BUDGET,
            orElse: () => Effect.as(Effect.logWarning("AI agent model ran out of time", job.id), handoff("model_error"))
          })
        )
        return yield* act(outcome)
      }).pipe(Effect.provideService(MessageRepo, messageRepo))

    /**
     * Writes what was decided and completes the job, in one transaction, only while the claim holds. Returns the
     * outcome written, or null when nothing was sent (the job was skipped, or its claim was lost).
     */
    const finish = (job: ClaimedReplyJob, prepared: Prepared) =>
      tx.withTransaction(Effect.gen(function*() {
        const at = yield* now
        // Locked (PostgreSQL) before it is read, so a person's concurrent reassignment either lands first and is
        // seen here, or waits for this write and then replaces it: the agent never writes over it.
        if (prepared._tag === "Act") yield* locks.lock("conversations", job.workspaceId, job.conversationId)
        // A person may have taken the conversation (or closed it) while the model answered: then nothing is sent.
        const current = prepared._tag === "Skip"
          ? Option.none()
          : Option.filter(
            yield* conversations.findById(job.workspaceId, job.conversationId),
            (c) => stillAnswering(c, prepared.agent)
          )
        if (prepared._tag === "Skip" || Option.isNone(current)) {
          yield* jobs.complete(job, { _tag: "Skipped" }, at)
          return null
        }
        const { agent, outcome, principal, summary } = prepared
        const conversation = current.value
        if (outcome._tag === "Handoff") {
          const handedOff: ReplyOutcome = { _tag: "HandedOff", reason: outcome.escalation.reason }
          if (!(yield* jobs.complete(job, handedOff, at))) return null
          yield* handOff(job.workspaceId, conversation, agent, outcome.escalation, summary).pipe(
            Effect.provideService(Principal, principal)
          )
          return handedOff
        }
        const reply = new Message({
          id: MessageId.make(yield* ids.uuid),
          conversation_id: conversation.id,
          sender_type: "agent",
          sender_id: agent.id,
          customer_id: conversation.customer_id,
          content: outcome.answer,
          sent_at: at,
          is_internal: false,
          from: [],
          to: [],
          cc: [],
          bcc: [],
          email_status: null,
          email_error_message: null,
          citations: outcome.citations,
          created_at: at
        })
        const replied: ReplyOutcome = { _tag: "Replied", messageId: reply.id }
        if (!(yield* jobs.complete(job, replied, at))) return null
        yield* messages.append(job.workspaceId, conversation, reply).pipe(Effect.provideService(Principal, principal))
        return replied
      }))

    /** One job: claim the oldest due one, answer it, write the outcome. False when nothing was due. */
    const processNext: Effect.Effect<boolean, PersistenceError> = Effect.gen(function*() {
      const at = yield* now
      const claimed = yield* jobs.claimNext({ claimant, now: at, leaseUntil: DateTime.addDuration(at, REPLY_LEASE) })
      if (Option.isNone(claimed)) return false
      yield* countReply(yield* finish(claimed.value, yield* prepare(claimed.value)))
      return true
    })

    /** Answers every due job, then stops. */
    const drain = Effect.repeat(processNext, { while: (processed) => processed })

    /** Gives back this worker's leases (it is stopping): another worker, or the next start, answers them. */
    const release = Effect.flatMap(now, (at) => jobs.release(claimant, at))

    return { processNext, drain, release } as const
  }).pipe(withIdStream(REPLY_STREAM))
}) {
  /** The worker's service (`processNext`, `drain`, `release`) without the loop that runs it: see `layer`. */
  static readonly layerServiceWithoutDependencies = Layer.effect(this, this.make)
  static readonly layerService = this.layerServiceWithoutDependencies.pipe(
    Layer.provide(Layer.mergeAll(AgentAnswers.layer, Messages.layer, Events.layer))
  )

  /**
   * The running worker: drains on start, when a customer message enqueues a job, and every `pollInterval`
   * (jobs of other processes, expired leases). Stops with its scope, giving back its leases.
   */
  static readonly layer = (options: { readonly pollInterval?: Duration.Input } = {}) =>
    Layer.effectDiscard(Effect.gen(function*() {
      const worker = yield* ReplyWorker
      const signal = yield* ReplySignal
      const interval = options.pollInterval ?? Duration.seconds(1)
      // Registered before the fiber is forked, so it runs after the fiber is interrupted.
      yield* Effect.addFinalizer(() =>
        worker.release.pipe(
          Effect.catchTag("PersistenceError", (error) => Effect.logWarning("reply worker release failed", error.reason))
        )
      )
      // Subscribed before draining, so a job enqueued while the worker drains still wakes it.
      const step = Effect.flatMap(signal.subscribe, (woken) =>
        Effect.andThen(
          // A database hiccup must not stop the replies for good: log it and try again at the next wake-up.
          Effect.catchTag(
            worker.drain,
            "PersistenceError",
            (error) => Effect.logWarning("reply worker step failed", error.reason)
          ),
          Effect.race(woken, Effect.sleep(interval))
        ))
      yield* step.pipe(Effect.forever, withIdStream(REPLY_STREAM), Effect.forkScoped)
    }))
}
