/**
 * Messages. A message moves its conversation's `last_message_at` and, for the first public reply of a
 * user or agent, `first_response_at`; a customer's message marks the customer seen. Customer, user and agent
 * messages record their events; a customer message an AI agent answers enqueues its reply job.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { AgentRepo } from "../agents/AgentRepo.js"
import { ReplyJobs } from "../ai/ReplyJobs.js"
import { ReplySignal } from "../ai/ReplySignal.js"
import { CustomerRepo } from "../customers/CustomerRepo.js"
import type { EventType } from "../events/Event.js"
import { encodeData, Events } from "../events/Events.js"
import { InvalidSender, NotFound, orNotFound, ValidationError } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { AgentId, type ConversationId, MessageId, ReplyJobId, UserId, type WorkspaceId } from "../shared/Ids.js"
import { planList, type SortKey } from "../shared/Pagination.js"
import { RowLocks } from "../shared/Preconditions.js"
import { accessTo } from "../shared/Principal.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { afterCommit, Transactor } from "../shared/Transactor.js"
import { UserRepo } from "../workspaces/WorkspaceRepo.js"
import { Conversation } from "./Conversation.js"
import { ConversationRepo, MessageRepo } from "./ConversationRepo.js"
import { type CreateMessage, type ListMessages, Message } from "./Message.js"

/** Every operation here acts on conversations: their abilities, or the broad ones, allow it. */
const { canRead, canWrite } = accessTo("conversations")

/** The event of each sender's message; system messages record none, as no event type covers them. */
const eventTypes: Record<Message["sender_type"], EventType | null> = {
  customer: "conversation.customer.message.created",
  user: "conversation.user.message.created",
  agent: "conversation.agent.message.created",
  system: null
}

/** Messages are listed by `sent_at`; they are never edited, so sync follows `created_at`. */
const messageKey = (m: Message): SortKey => ({ newest: m.sent_at, updated: m.created_at, id: m.id })

export class Messages extends Context.Service<Messages>()("@support-engine/core/Messages", {
  make: Effect.gen(function*() {
    const repo = yield* MessageRepo
    const conversations = yield* ConversationRepo
    const customers = yield* CustomerRepo
    const agents = yield* AgentRepo
    const users = yield* UserRepo
    const tx = yield* Transactor
    const ids = yield* IdGenerator
    const events = yield* Events
    const replies = yield* ReplyJobs
    const signal = yield* ReplySignal
    const locks = yield* RowLocks

    /** The sender must exist in the workspace; a customer sender must be the conversation's customer. */
    const checkSender = (workspaceId: WorkspaceId, conversation: Conversation, input: CreateMessage) =>
      Effect.gen(function*() {
        const senderId = input.sender_id ?? null
        if (input.sender_type === "system") {
          if (senderId !== null) return yield* ValidationError.field("sender_id", "must be absent for a system message")
          return null
        }
        if (senderId === null) {
          return yield* ValidationError.field(
            "sender_id",
            "The sender_id field is required unless sender_type is system."
          )
        }
        const invalid = new InvalidSender({ message: `The sender is not a ${input.sender_type} of this conversation.` })
        const exists = input.sender_type === "customer"
          ? senderId === conversation.customer_id &&
            Option.isSome(yield* customers.findById(workspaceId, conversation.customer_id))
          : input.sender_type === "user"
          ? Option.isSome(yield* users.findById(workspaceId, UserId.make(senderId)))
          : (yield* agents.findIds(workspaceId, [AgentId.make(senderId)])).length > 0
        return exists ? senderId : yield* invalid
      })

    /**
     * Whether the conversation's assignee is an agent that answers this message by itself: a public customer
     * message in an open, non-spam conversation assigned to an active, non-copilot agent with `auto_reply`.
     */
    const answeringAgent = (workspaceId: WorkspaceId, conversation: Conversation, message: Message) =>
      Effect.gen(function*() {
        if (message.sender_type !== "customer" || message.is_internal) return Option.none()
        if (conversation.status !== "open" || conversation.is_spam) return Option.none()
        if (conversation.assignee_type !== "agent" || conversation.assignee_id === null) return Option.none()
        const agent = yield* agents.findById(workspaceId, AgentId.make(conversation.assignee_id))
        return Option.filter(agent, (a) => a.is_active && a.auto_reply && !a.is_copilot)
      })

    /**
     * Stores a message in the caller's transaction with everything it implies: the conversation's
     * times, the customer seen, its event, and a reply job when an agent answers it. For the engine's own
     * writers (the reply loop); it checks no ability or sender. True when a reply job was enqueued.
     */
    const append = Tracing.fn("Messages.append")(
      function*(workspaceId: WorkspaceId, conversation: Conversation, message: Message) {
        yield* repo.insert(workspaceId, message)
        const isResponse = !message.is_internal && (message.sender_type === "user" || message.sender_type === "agent")
        const updated = new Conversation({
          ...conversation,
          last_message_at: conversation.last_message_at === null
            ? message.sent_at
            : DateTime.max(conversation.last_message_at, message.sent_at),
          first_response_at: conversation.first_response_at === null && isResponse
            ? message.sent_at
            : conversation.first_response_at,
          updated_at: message.created_at
        })
        yield* conversations.update(workspaceId, updated)
        if (message.sender_type === "customer") {
          yield* customers.markSeen(workspaceId, conversation.customer_id, message.sent_at)
        }

        const data = { conversation_id: conversation.id, message: encodeData(Message, message) }
        const type = eventTypes[message.sender_type]
        if (type !== null) yield* events.record(type, data)

        const agent = yield* answeringAgent(workspaceId, conversation, message)
        if (Option.isNone(agent)) return { conversation: updated, enqueued: false }
        yield* replies.enqueue(workspaceId, {
          id: ReplyJobId.make(yield* ids.uuid),
          conversationId: conversation.id,
          messageId: message.id,
          agentId: agent.value.id,
          at: message.created_at
        })
        return { conversation: updated, enqueued: true }
      }
    )

    const create = Tracing.fn("Messages.create")(function*(conversationId: ConversationId, input: CreateMessage) {
      const principal = yield* canWrite
      const workspaceId = principal.workspaceId
      return yield* tx.withTransaction(Effect.gen(function*() {
        // Held first, and with it the customer (the lock order of `RowLocks`), whom a customer's message marks seen:
        // a message posted while its customer is being erased waits, then finds no conversation (404).
        yield* locks.lock("conversations", workspaceId, conversationId)
        const conversation = yield* conversations.findById(workspaceId, conversationId).pipe(orNotFound("Conversation"))
        const senderId = yield* checkSender(workspaceId, conversation, input)
        const at = yield* now
        const message = new Message({
          id: MessageId.make(yield* ids.uuid),
          conversation_id: conversation.id,
          sender_type: input.sender_type,
          sender_id: senderId,
          customer_id: conversation.customer_id,
          content: input.content,
          sent_at: input.sent_at ?? at,
          is_internal: input.is_internal ?? false,
          from: input.from ?? [],
          to: input.to ?? [],
          cc: input.cc ?? [],
          bcc: input.bcc ?? [],
          email_status: null,
          email_error_message: null,
          citations: [],
          created_at: at
        })
        const { enqueued } = yield* append(workspaceId, conversation, message)
        // After the outermost commit, so the woken worker finds the job: an idempotency key's transaction
        // may enclose this one.
        if (enqueued) yield* afterCommit(signal.notify)
        return message
      }))
    })

    const remove = Tracing.fn("Messages.delete")(function*(id: MessageId) {
      const principal = yield* canWrite
      const deleted = yield* tx.withTransaction(repo.delete(principal.workspaceId, id))
      if (!deleted) return yield* new NotFound({ resource: "Message" })
    })

    const list = Tracing.fn("Messages.list")(function*(query: ListMessages) {
      const principal = yield* canRead
      const plan = yield* planList(query)
      const filter = { sender_type: query.sender_type, conversation_id: query.conversation_id }
      const { items, total } = yield* repo.list(principal.workspaceId, filter, plan.slice)
      return plan.page(items, total, messageKey)
    })

    return { create, append, delete: remove, list } as const
  })
}) {
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(
    Layer.provide(Layer.mergeAll(Events.layer, ReplySignal.layer))
  )
}
