/** Storage ports for conversations and messages. Every method is scoped by workspace. */
import { Context, type Effect, type Option } from "effect"
import type { PersistenceError } from "../shared/Errors.js"
import type { ConversationId, CustomerId, MessageId, WorkspaceId } from "../shared/Ids.js"
import type { Slice, SliceRequest } from "../shared/Repository.js"
import type { Conversation } from "./Conversation.js"
import type { Message, SenderType } from "./Message.js"

export interface ConversationFilter {
  readonly status?: Conversation["status"] | undefined
  readonly priority?: Conversation["priority"] | undefined
  readonly channel?: Conversation["channel"] | undefined
  readonly customer_id?: CustomerId | undefined
  readonly assignee_id?: string | undefined
  /** Search words: conversations whose subject or a message matches, best first. */
  readonly terms?: ReadonlyArray<string> | undefined
}

export class ConversationRepo extends Context.Service<ConversationRepo, {
  readonly insert: (workspaceId: WorkspaceId, conversation: Conversation) => Effect.Effect<void, PersistenceError>
  readonly update: (workspaceId: WorkspaceId, conversation: Conversation) => Effect.Effect<void, PersistenceError>
  readonly findById: (
    workspaceId: WorkspaceId,
    id: ConversationId
  ) => Effect.Effect<Option.Option<Conversation>, PersistenceError>
  /** Deletes the conversation and its messages (keeping the message counter right). False when absent. */
  readonly delete: (workspaceId: WorkspaceId, id: ConversationId) => Effect.Effect<boolean, PersistenceError>
  readonly list: (
    workspaceId: WorkspaceId,
    filter: ConversationFilter,
    slice: SliceRequest
  ) => Effect.Effect<Slice<Conversation>, PersistenceError>
}>()("@support-engine/core/ConversationRepo") {}

export interface MessageFilter {
  readonly sender_type?: SenderType | undefined
  readonly conversation_id?: ConversationId | undefined
}

export class MessageRepo extends Context.Service<MessageRepo, {
  readonly insert: (workspaceId: WorkspaceId, message: Message) => Effect.Effect<void, PersistenceError>
  readonly delete: (workspaceId: WorkspaceId, id: MessageId) => Effect.Effect<boolean, PersistenceError>
  /** Newest first: `sent_at` desc, `id` desc. */
  readonly list: (
    workspaceId: WorkspaceId,
    filter: MessageFilter,
    slice: SliceRequest
  ) => Effect.Effect<Slice<Message>, PersistenceError>
}>()("@support-engine/core/MessageRepo") {}
