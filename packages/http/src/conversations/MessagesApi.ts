/** Messages (spec, D19, D29): `POST /conversations/{id}/messages`, `GET /messages`, `DELETE /messages/{id}`. */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { ConversationId, CreateMessage, ListMessages, Message, MessageId } from "@support-engine/core"
import { Authentication } from "../shared/Authentication.js"
import { InvalidSenderResponse, NotFoundResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, payload } from "../shared/Requests.js"

const { conversation_id, sender_type } = ListMessages.fields

export class MessagesApi extends HttpApiGroup.make("messages")
  .add(
    HttpApiEndpoint.post("create", "/conversations/:id/messages")
      .annotate(OpenApi.Summary, "Send a message")
      .setPath(idPath(ConversationId))
      .setPayload(payload(CreateMessage))
      .addSuccess(Message, { status: 201 })
      .addError(NotFoundResponse)
      .addError(InvalidSenderResponse)
  )
  .add(
    HttpApiEndpoint.get("list", "/messages")
      .annotate(OpenApi.Summary, "List messages")
      .setUrlParams(listQuery({ sender_type, conversation_id }))
      .addSuccess(ListEnvelope(Message, "MessageList"))
  )
  .add(
    HttpApiEndpoint.del("delete", "/messages/:id")
      .annotate(OpenApi.Summary, "Delete a message")
      .setPath(idPath(MessageId))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Messages")
  .annotate(
    OpenApi.Description,
    "Messages of conversations, newest first by `sent_at`. A sender must exist in the workspace; a customer " +
      "sender must be the conversation's customer; `system` has no sender id (else 400 INVALID_SENDER)."
  )
{}
