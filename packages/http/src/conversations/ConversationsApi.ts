/** `/conversations` (spec, D26-D28). */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import {
  Conversation,
  ConversationId,
  CreateConversation,
  ListConversations,
  UpdateConversation
} from "@support-engine/core"
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
export const createConversation = HttpApiEndpoint.post("create", "/conversations")
  .annotate(OpenApi.Summary, "Create a conversation")
  .setPayload(payload(CreateConversation))
  .addSuccess(Conversation, { status: 201 })
  .addError(InvalidAssigneeResponse)
  .addError(InvalidAssigneeTypeResponse)

export class ConversationsApi extends HttpApiGroup.make("conversations")
  .add(createConversation)
  .add(
    HttpApiEndpoint.get("list", "/conversations")
      .annotate(OpenApi.Summary, "List conversations")
      .setUrlParams(listQuery({ status, priority, channel, customer_id, assignee_id, q }))
      .addSuccess(ListEnvelope(Conversation, "ConversationList"))
  )
  .add(
    HttpApiEndpoint.get("get", "/conversations/:id")
      .annotate(OpenApi.Summary, "Get a conversation")
      .setPath(path)
      .addSuccess(Conversation)
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.put("update", "/conversations/:id")
      .annotate(OpenApi.Summary, "Update a conversation")
      .setPath(path)
      .setPayload(payload(UpdateConversation))
      .addSuccess(Conversation)
      .addError(NotFoundResponse)
      .addError(InvalidAssigneeResponse)
      .addError(InvalidAssigneeTypeResponse)
      .addError(PreconditionFailedResponse)
  )
  .add(
    HttpApiEndpoint.del("delete", "/conversations/:id")
      .annotate(OpenApi.Summary, "Delete a conversation")
      .setPath(path)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
      .addError(PreconditionFailedResponse)
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
