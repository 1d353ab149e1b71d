/** `/conversations`: create, list, read, update and delete, with the copilot's suggestions and summaries. */
import {
  Conversation,
  ConversationId,
  ConversationSummary,
  CreateConversation,
  ListConversations,
  SuggestedReply,
  SuggestReply,
  SummarizeConversation,
  UpdateConversation
} from "@support-engine/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../shared/Authentication.js"
import {
  InvalidAgentResponse,
  InvalidAssigneeResponse,
  InvalidAssigneeTypeResponse,
  NotFoundResponse,
  PreconditionFailedResponse
} from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, payload } from "../shared/Requests.js"

const path = idPath(ConversationId)
const { assignee_id, channel, customer_id, priority, q, status } = ListConversations.fields

/** `POST /conversations`; exported so the bench's floor server serves the same endpoint. */
export const createConversation = HttpApiEndpoint.post("create", "/conversations", {
  payload: payload(CreateConversation),
  success: Conversation.pipe(HttpApiSchema.status(201)),
  error: [InvalidAssigneeResponse, InvalidAssigneeTypeResponse]
}).annotate(OpenApi.Summary, "Create a conversation")

export class ConversationsApi extends HttpApiGroup.make("conversations")
  .add(createConversation)
  .add(
    HttpApiEndpoint.get("list", "/conversations", {
      query: listQuery({ status, priority, channel, customer_id, assignee_id, q }),
      success: ListEnvelope(Conversation, "ConversationList")
    }).annotate(OpenApi.Summary, "List conversations")
  )
  .add(
    HttpApiEndpoint.get("get", "/conversations/:id", { params: path, success: Conversation, error: NotFoundResponse })
      .annotate(OpenApi.Summary, "Get a conversation")
  )
  .add(
    HttpApiEndpoint.put("update", "/conversations/:id", {
      params: path,
      payload: payload(UpdateConversation),
      success: Conversation,
      error: [NotFoundResponse, InvalidAssigneeResponse, InvalidAssigneeTypeResponse, PreconditionFailedResponse]
    }).annotate(OpenApi.Summary, "Update a conversation")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/conversations/:id", {
      params: path,
      success: HttpApiSchema.NoContent,
      error: [NotFoundResponse, PreconditionFailedResponse]
    }).annotate(OpenApi.Summary, "Delete a conversation")
  )
  .add(
    HttpApiEndpoint.post("suggestReply", "/conversations/:id/suggest-reply", {
      params: path,
      payload: payload(SuggestReply),
      success: SuggestedReply,
      error: [NotFoundResponse, InvalidAgentResponse]
    }).annotate(OpenApi.Summary, "Suggest a reply").annotate(
      OpenApi.Description,
      "A reply to the conversation's latest customer message, drafted by the agent from its content and the " +
        "conversation so far, for a person to send: `suggestion` with its `citations`, or the handoff " +
        "(`escalation`) the agent would make instead; both null before the customer has written. Any agent of the " +
        "workspace; the customer's language (`locale`, else the customer's) is preferred. Needs the read ability; " +
        "stores nothing."
    )
  )
  .add(
    HttpApiEndpoint.post("summarize", "/conversations/:id/summarize", {
      params: path,
      payload: payload(SummarizeConversation),
      success: ConversationSummary,
      error: [NotFoundResponse, InvalidAgentResponse]
    }).annotate(OpenApi.Summary, "Summarize a conversation").annotate(
      OpenApi.Description,
      "The customer's first request, what was answered and what is still open, in at most 1,000 characters " +
        "(`\"\"` for a conversation without public messages). Needs the read ability; stores nothing."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Conversations")
  .annotate(
    OpenApi.Description,
    "Support conversations. Assignment rules: a user of the workspace, nobody, the conversation's original " +
      "chat agent (chat) or the workspace's active email agent (email); otherwise 400 INVALID_ASSIGNEE or " +
      "INVALID_ASSIGNEE_TYPE."
  )
{}
