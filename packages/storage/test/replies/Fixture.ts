/** A workspace with an AI agent, its content and a customer conversation assigned to it, for the reply loop (D53). */
import {
  type Agent,
  Agents,
  type Conversation,
  Conversations,
  CreateAgent,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CreateTrainingData,
  CreateUser,
  Customers,
  Events,
  type EventType,
  ListEvents,
  ListMessages,
  type MessageId,
  Messages,
  ReplyWorker,
  Training,
  TrainingWorker,
  type User,
  Users,
  Workspaces
} from "@support-engine/core"
import { Duration, Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { as, makeWorkspace } from "../conformance/Harness.js"

type AgentFields = Omit<ConstructorParameters<typeof CreateAgent>[0], "name">

export interface FixtureOptions {
  /** The agent's settings; `auto_reply` is on unless set here. */
  readonly agent?: (user: User) => AgentFields
  readonly copilot?: boolean
  readonly channel?: "chat" | "email"
  /** The training text the agent answers from. */
  readonly content?: string
}

export const REFUNDS = "Refunds are paid back within five working days."

/** Runs the training worker until its queue is empty (items become retrievable once completed). */
export const drainTraining = Effect.gen(function*() {
  yield* TestClock.adjust(Duration.seconds(1))
  while (yield* (yield* TrainingWorker).processNext) { /* drain */ }
})

export const fixture = (options: FixtureOptions = {}) =>
  Effect.gen(function*() {
    const { principal, workspace } = yield* makeWorkspace()
    const user = yield* (yield* Users).create(
      new CreateUser({ workspace_id: workspace.id, name: "Grace", email: "grace@example.com" })
    )
    const agent: Agent = yield* (yield* Agents).create(
      new CreateAgent({ name: "Bot", auto_reply: true, ...options.agent?.(user) }),
      { copilot: options.copilot ?? false }
    ).pipe(as(principal))
    const item = yield* (yield* Training).create(
      new CreateTrainingData({ type: "text", title: "Refund policy", content: options.content ?? REFUNDS })
    ).pipe(as(principal))
    yield* drainTraining
    const channel = options.channel ?? "chat"
    if (channel === "email") yield* (yield* Workspaces).setEmailAgent(workspace.id, agent.id)
    const customer = yield* (yield* Customers).create(new CreateCustomer({ email: "ada@example.com" })).pipe(
      as(principal)
    )
    const conversation: Conversation = yield* (yield* Conversations).create(
      new CreateConversation({ customer_id: customer.id, channel, assignee_id: agent.id, assignee_type: "agent" })
    ).pipe(as(principal))
    const messages = yield* Messages
    const events = yield* Events

    const say = (content: string) =>
      messages.create(conversation.id, new CreateMessage({ sender_type: "customer", sender_id: customer.id, content }))
        .pipe(as(principal))
    /** The conversation's messages, oldest first. */
    const thread = messages.list(new ListMessages({ conversation_id: conversation.id, per_page: 100 })).pipe(
      as(principal),
      Effect.map((page) => [...page.data].reverse())
    )
    const eventsOf = (event: EventType) =>
      events.list(new ListEvents({ event, per_page: 100 })).pipe(as(principal), Effect.map((page) => page.data))
    const current = (yield* Conversations).get(conversation.id).pipe(as(principal))
    /** The stored job of a message (the table itself: the port has no reader, the worker needs none). */
    const jobOf = (messageId: MessageId) =>
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`SELECT status, outcome FROM reply_jobs WHERE message_id = ${messageId}`).pipe(
          Effect.flatMap(Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({
            status: Schema.String,
            outcome: Schema.NullOr(Schema.String)
          })))),
          Effect.orDie
        )
    const answer = (yield* ReplyWorker).drain

    return {
      principal,
      workspace,
      user,
      agent,
      item,
      customer,
      conversation,
      say,
      thread,
      eventsOf,
      current,
      jobOf,
      answer
    }
  }).pipe(Effect.orDie)
