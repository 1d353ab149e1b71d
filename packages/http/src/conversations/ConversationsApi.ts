/** `/conversations` (spec, D26-D28). */
import {
  Conversation,
  ConversationId,
  CreateConversation,
  ListConversations,
  UpdateConversation
} from "@support-engine/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../shared/Authentication.js"
import {
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
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Conversations")
  .annotate(
    OpenApi.Description,
    "Support conversations. Assignment rules: a user of the workspace, nobody, the conversation's original " +
      "chat agent (chat) or the workspace's active email agent (email); otherwise 400 INVALID_ASSIGNEE or " +
      "INVALID_ASSIGNEE_TYPE."
  )
{}
