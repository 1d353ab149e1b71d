/** MCP tools over conversations and their messages: the calls of `/v1/conversations` and `/v1/messages`. */
import {
  Conversation,
  ConversationId,
  Conversations,
  ConversationStatus,
  CreateMessage,
  ListConversations,
  ListMessages,
  Message,
  Messages,
  type Page,
  PageMeta,
  Principal,
  SearchText,
  UpdateConversation,
  UserId
} from "@support-engine/core"
import { Effect, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { asTool, ToolFailed } from "./ToolAccess.js"

/** How many items a search answers: 1 to 50, 10 when absent. */
export const SearchLimit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 50 })).annotate({
  description: "How many results to return, 1 to 50 (default 10)."
})
export const DEFAULT_LIMIT = 10

/** A list as `GET /v1/...` answers it, less the links, which are URLs of an HTTP request. */
export const SearchResult = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ data: Schema.Array(item), meta: PageMeta })

const conversationId = ConversationId.annotate({ description: "The conversation's id (a UUID)." })

export const ConversationWithMessages = Schema.Struct({
  ...Conversation.fields,
  messages: Schema.Array(Message).annotate({ description: "Every message of the conversation, oldest first." })
})

const SearchConversations = Tool.make("search_conversations", {
  description: "Search the workspace's support conversations. Use it to find conversations by what was said in " +
    "them or by subject, or to list the newest ones (optionally only open or closed ones) when triaging. Returns " +
    "`data` (conversations: id, status, priority, tags, assignee, customer_id, timestamps; best match first with a " +
    "query, newest first without) and `meta` (total count and paging). Fetch one with get_conversation to read its " +
    "messages.",
  parameters: Schema.Struct({
    query: Schema.optionalKey(SearchText).annotate({
      description: "Words to search the subject and every message for (each word matches as a prefix)."
    }),
    status: Schema.optionalKey(ConversationStatus).annotate({ description: "Only open or only closed ones." }),
    limit: Schema.optionalKey(SearchLimit)
  }),
  success: SearchResult(Conversation),
  failure: ToolFailed,
  dependencies: [Principal]
}).annotate(Tool.Title, "Search conversations").annotate(Tool.Readonly, true).annotate(Tool.Destructive, false)

const GetConversation = Tool.make("get_conversation", {
  description: "Read one conversation with all its messages, oldest first: the customer's messages, replies, " +
    "internal notes (`is_internal`) and AI agent answers. Use it before replying to or updating a conversation. " +
    "Returns the conversation's fields plus `messages`.",
  parameters: Schema.Struct({ conversation_id: conversationId }),
  success: ConversationWithMessages,
  failure: ToolFailed,
  dependencies: [Principal]
}).annotate(Tool.Title, "Get a conversation").annotate(Tool.Readonly, true).annotate(Tool.Destructive, false)

const ReplyToConversation = Tool.make("reply_to_conversation", {
  description: "Add a message from a person of the support team (`user_id`) to a conversation: a reply the " +
    "customer sees, or with `internal: true` a note only the team sees. Use it after reading the conversation with " +
    "get_conversation. Returns the message created.",
  parameters: Schema.Struct({
    conversation_id: conversationId,
    user_id: UserId.annotate({ description: "The id of the workspace user the message is sent as (a UUID)." }),
    content: CreateMessage.fields.content.annotate({ description: "The message text." }),
    internal: Schema.optionalKey(Schema.Boolean).annotate({
      description: "true for an internal note the customer never sees (default false)."
    })
  }),
  success: Message,
  failure: ToolFailed,
  dependencies: [Principal]
}).annotate(Tool.Title, "Reply to a conversation").annotate(Tool.Destructive, false)

const UpdateConversationTool = Tool.make("update_conversation", {
  description: "Change a conversation's status (open or closed), priority, tags or assignee; fields left out stay " +
    "as they are, and `tags` replaces the whole list. Use it to triage: set the priority, tag the topic, assign a " +
    "user (`assignee_type: \"user\"`) or close a resolved conversation. Returns the updated conversation.",
  parameters: Schema.Struct({
    conversation_id: conversationId,
    status: UpdateConversation.fields.status,
    priority: UpdateConversation.fields.priority,
    tags: UpdateConversation.fields.tags.annotate({ description: "The conversation's tags: replaces them all." }),
    assignee_id: UpdateConversation.fields.assignee_id.annotate({
      description: "A user or agent id of the workspace, or null for nobody."
    }),
    assignee_type: UpdateConversation.fields.assignee_type
  }),
  success: Conversation,
  failure: ToolFailed,
  dependencies: [Principal]
}).annotate(Tool.Title, "Update a conversation").annotate(Tool.Destructive, false).annotate(Tool.Idempotent, true)

export const ConversationTools = Toolkit.make(
  SearchConversations,
  GetConversation,
  ReplyToConversation,
  UpdateConversationTool
)

/** A page of messages; the whole conversation is read a page at a time. */
const PAGE = 100

export const ConversationToolsLive = ConversationTools.toLayer(Effect.gen(function*() {
  const conversations = yield* Conversations
  const messages = yield* Messages

  /** Every message of the conversation, oldest first (the list answers newest first, a page per cursor). */
  const allMessages = (id: ConversationId) =>
    Effect.gen(function*() {
      const read: Array<Message> = []
      let cursor: string | null = null
      do {
        const page: Page<Message> = yield* messages.list(
          new ListMessages({ conversation_id: id, per_page: PAGE, ...(cursor === null ? {} : { cursor }) })
        )
        read.push(...page.data)
        cursor = page.meta.next_cursor
      } while (cursor !== null)
      return read.reverse()
    })

  return ConversationTools.of({
    search_conversations: ({ limit, query, status }) =>
      asTool(
        Effect.map(
          conversations.list(
            new ListConversations({
              per_page: limit ?? DEFAULT_LIMIT,
              ...(query === undefined ? {} : { q: query }),
              ...(status === undefined ? {} : { status })
            })
          ),
          ({ data, meta }) => ({ data, meta })
        )
      ),
    get_conversation: ({ conversation_id }) =>
      asTool(Effect.gen(function*() {
        const conversation = yield* conversations.get(conversation_id)
        return { ...conversation, messages: yield* allMessages(conversation_id) }
      })),
    reply_to_conversation: ({ content, conversation_id, internal, user_id }) =>
      asTool(messages.create(conversation_id, {
        sender_type: "user",
        sender_id: user_id,
        content,
        is_internal: internal ?? false
      })),
    update_conversation: ({ conversation_id, ...changes }) => asTool(conversations.update(conversation_id, changes))
  })
}))
