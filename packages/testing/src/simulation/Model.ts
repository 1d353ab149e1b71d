/**
 * What the simulator believes the engine holds: the model its checks compare the engine against. Plain records,
 * changed by the operations (ops/) as they succeed and by the observers (invariants/) as events and requests come.
 */
import type {
  AgentId,
  ApiTokenId,
  ArticleId,
  CompanyId,
  ConversationId,
  CustomerId,
  EventId,
  OrganizationId,
  PrincipalShape,
  TrainingDataId,
  TrainingFolderId,
  UserId,
  WebhookId,
  WorkspaceId
} from "@support-engine/core"
import type { Redacted } from "effect"

export interface TokenModel {
  readonly id: ApiTokenId
  readonly plain: Redacted.Redacted<string>
  readonly canWrite: boolean
  /** Epoch ms, or null for never. */
  readonly expiresAt: number | null
  revoked: boolean
}

export interface AgentModel {
  readonly id: AgentId
  readonly copilot: boolean
  active: boolean
  autoReply: boolean
  limit: number
  phrases: ReadonlyArray<string>
  rules: ReadonlyArray<{ readonly channel: "chat" | "email"; readonly rule: string; readonly escalateTo: UserId }>
  deleted: boolean
}

/** A customer message that an answering agent must answer once (a reply or a handoff). */
export interface Ask {
  readonly at: number
  readonly agent: AgentModel
  readonly limitAtAsk: number
  readonly phrasesAtAsk: ReadonlyArray<string>
  /** By when it must be answered (epoch ms), or "end" after a crash: then at the end of the run. */
  deadline: number | "end"
  /** The conversation or agent changed while it waited: a skipped job is then right too (at most one answer). */
  maybe: boolean
}

export interface ConversationModel {
  readonly id: ConversationId
  readonly space: number
  readonly customer: CustomerId
  readonly channel: "chat" | "email"
  /** The original chat agent, the only agent that may be assigned the chat. */
  readonly agentId: AgentId | null
  status: "open" | "closed"
  spam: boolean
  assignee: { readonly type: "user" | "agent"; readonly id: string } | null
  messages: number
  /**
   * Each agent's replies since the conversation was created or last reopened, its session: the agent's message limit
   * counts the replies of the agent about to answer, so the replies of an agent it was assigned before do not count.
   */
  readonly sessionReplies: Map<string, number>
  readonly asks: Array<Ask>
  deleted: boolean
}

export interface SecretModel {
  readonly secret: string
  readonly from: number
  /** While it still signs: set when it is rotated away (the end of its grace), undefined while current. */
  until: number | undefined
}

export interface HookModel {
  readonly id: WebhookId
  readonly space: number
  readonly url: string
  events: ReadonlyArray<string>
  active: boolean
  deleted: boolean
  /** Epoch ms it was deleted at: attempts that started before may still arrive. */
  deletedAt: number | undefined
  readonly secrets: Array<SecretModel>
}

/** A request made with an `Idempotency-Key` and the answer it got, which every replay must get again. */
export interface KeyModel {
  readonly key: string
  readonly at: number
  readonly kind: "customer" | "message"
  /** The request's target (a conversation, for a message) and body, as JSON. */
  readonly target: string
  readonly body: Readonly<Record<string, unknown>>
  readonly answer: string
}

export interface Space {
  readonly index: number
  readonly id: WorkspaceId
  readonly organizationId: OrganizationId
  /** The write token every operation of this workspace acts as, unless it is about tokens. */
  readonly principal: PrincipalShape
  readonly tokens: Array<TokenModel>
  readonly users: Array<UserId>
  readonly companies: Array<CompanyId>
  readonly customers: Array<{ readonly id: CustomerId; readonly email: string | null }>
  readonly agents: Array<AgentModel>
  readonly conversations: Array<ConversationModel>
  readonly training: Array<TrainingDataId>
  readonly articles: Array<ArticleId>
  /** Webhooks not deleted. */
  readonly hooks: Array<HookModel>
  /** Training folders (in process only: the contract only references them by `training_folder_id`). */
  readonly folders: Array<TrainingFolderId>
  /** The workspace's email agent as last set; cleared by the engine when that agent is deleted. */
  emailAgent: AgentId | null
  /** Idempotency keys used, for replays and reuse with another body. */
  readonly keys: Array<KeyModel>
  /** The workspace's messages: those sent, replies and handoff notes. */
  messages: number
  /** The event log read so far: how many, and the last id, where the next read starts. */
  events: number
  lastEvent: EventId | undefined
}

/** The engine was down from `from` to `to` (epoch ms): work due in between is done at `to`. */
export interface Downtime {
  readonly from: number
  readonly to: number
}

export interface World {
  readonly spaces: Array<Space>
  readonly hooksByUrl: Map<string, HookModel>
  readonly conversations: Map<string, ConversationModel>
  /**
   * The conversations asked something since they were last found with nothing pending: the ones `checkAsks` looks
   * at after each step, instead of every conversation of the run.
   */
  readonly asking: Set<ConversationModel>
  readonly downtimes: Array<Downtime>
  /** Requests of the receiver read so far. */
  requestsSeen: number
  /** On SQLite, the largest rowid of the event log read so far: only workspaces with later rows are read again. */
  eventRowid: number
  /** Numbers names, emails and URLs so that they are unique in the run. */
  serial: number
  /** When the (one) reply worker is free again, if every job before takes the model's full time. */
  workerFreeAt: number
  /**
   * Reply jobs a crash may have left claimed by the dead worker (at most the asks pending then), due again when
   * their lease ends (`orphansDueAt`); the first drain after that answers them before anything asked later.
   */
  orphans: number
  orphansDueAt: number
  /** What the step touched, `<space>:<kind>`: the lists checked after it. */
  readonly touched: Set<string>
  /**
   * The ids of erased customers and of their conversations, with the simulated time (epoch ms) of the
   * erasure: nothing read or received after it may hold them (invariants/Erasure.ts).
   */
  readonly erased: Map<string, number>
  /** Each erasure, for the reads that must find nothing of theirs (at the end, every one of them). */
  readonly erasures: Array<Erasure>
}

/** A customer erased, and what they had. */
export interface Erasure {
  readonly space: number
  readonly customer: CustomerId
  readonly email: string | null
  readonly conversations: ReadonlyArray<ConversationId>
  readonly at: number
}

export const emptyWorld = (): World => ({
  spaces: [],
  hooksByUrl: new Map(),
  conversations: new Map(),
  asking: new Set(),
  downtimes: [],
  requestsSeen: 0,
  eventRowid: 0,
  serial: 0,
  workerFreeAt: 0,
  orphans: 0,
  orphansDueAt: 0,
  touched: new Set(),
  erased: new Map(),
  erasures: []
})

/** The list kinds the list check knows (invariants/Lists.ts). */
export type ListKind =
  | "customers"
  | "companies"
  | "agents"
  | "conversations"
  | "messages"
  | "training"
  | "articles"
  | "webhooks"

export const touch = (world: World, space: Space, kind: ListKind) => world.touched.add(`${space.index}:${kind}`)

/** A conversation the engine just created, as the model starts it (open, no messages), added to its workspace. */
export const addConversation = (
  world: World,
  space: Space,
  fields: Pick<ConversationModel, "id" | "customer" | "channel" | "agentId" | "assignee">
): void => {
  const model: ConversationModel = {
    ...fields,
    space: space.index,
    status: "open",
    spam: false,
    messages: 0,
    sessionReplies: new Map(),
    asks: [],
    deleted: false
  }
  space.conversations.push(model)
  world.conversations.set(model.id, model)
  touch(world, space, "conversations")
}
