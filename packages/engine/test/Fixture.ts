/**
 * A workspace with an AI agent, its content and a customer conversation assigned to it, for the engine's reply
 * worker and the model providers; the same fixture as storage's reply tests, over the engine's layer here.
 */
import {
  type Ability,
  Actor,
  type Agent,
  Agents,
  type Conversation,
  Conversations,
  CreateAgent,
  CreateApiToken,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CreateTrainingData,
  CreateUser,
  CreateWorkspace,
  Customers,
  Events,
  type EventType,
  ListEvents,
  ListMessages,
  type MessageId,
  Messages,
  Principal,
  type PrincipalShape,
  ReplyWorker,
  Tokens,
  Training,
  TrainingWorker,
  type User,
  Users,
  type Workspace,
  Workspaces
} from "@support-engine/core"
import { Duration, Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

/**
 * A new workspace and a principal of it with the given abilities (write by default). The principal stands for
 * a token of the workspace; its abilities are set here directly so a test can also model a token with none.
 */
export const makeWorkspace = (
  abilities: ReadonlyArray<Ability> = ["external-api:write"],
  name = "Acme"
): Effect.Effect<{ readonly workspace: Workspace; readonly principal: PrincipalShape }, never, Workspaces | Tokens> =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name }))
    const { token } = yield* (yield* Tokens).create(
      new CreateApiToken({ workspace_id: workspace.id, name: "test", abilities: ["external-api:read"] })
    )
    const principal: PrincipalShape = {
      workspaceId: workspace.id,
      organizationId: workspace.organization_id,
      abilities,
      actor: Actor.apiToken(token.id)
    }
    return { workspace, principal }
  }).pipe(Effect.orDie)

/** Runs `self` as `principal`. */
export const as = (principal: PrincipalShape) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provideService(self, Principal, principal)

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
