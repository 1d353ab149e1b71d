/** Messages: `POST /conversations/{id}/messages`, `GET /messages`, `DELETE /messages/{id}`. */
import { ConversationId, CreateMessage, ListMessages, Message, MessageId } from "@support-engine/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../shared/Authentication.js"
import { InvalidSenderResponse, NotFoundResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, payload } from "../shared/Requests.js"

const { conversation_id, sender_type } = ListMessages.fields

export class MessagesApi extends HttpApiGroup.make("messages")
  .add(
    HttpApiEndpoint.post("create", "/conversations/:id/messages", {
      params: idPath(ConversationId),
      payload: payload(CreateMessage),
      success: Message.pipe(HttpApiSchema.status(201)),
      error: [NotFoundResponse, InvalidSenderResponse]
    }).annotate(OpenApi.Summary, "Send a message")
  )
  .add(
    HttpApiEndpoint.get("list", "/messages", {
      query: listQuery({ sender_type, conversation_id }),
      success: ListEnvelope(Message, "MessageList")
    }).annotate(OpenApi.Summary, "List messages")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/messages/:id", {
      params: idPath(MessageId),
      success: HttpApiSchema.NoContent,
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "Delete a message")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Messages")
  .annotate(
    OpenApi.Description,
    "Messages of conversations, newest first by `sent_at`. A sender must exist in the workspace; a customer " +
      "sender must be the conversation's customer; `system` has no sender id (else 400 INVALID_SENDER)."
  )
{}
