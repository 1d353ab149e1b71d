/** Messages (spec "Message"). */
import { Schema } from "effect"
import { Citation } from "../ai/Answer.js"
import { ConversationId, CustomerId, MessageId, Uuid } from "../shared/Ids.js"
import * as Model from "../shared/Model.js"
import { PageRequest } from "../shared/Pagination.js"
import { Timestamp } from "../shared/Timestamp.js"
import { BoundedString } from "../shared/Validation.js"

export const SenderType = Schema.Literals(["customer", "user", "agent", "system"])
export type SenderType = typeof SenderType.Type

export class Message extends Model.Class<Message>("Message")({
  id: MessageId,
  conversation_id: ConversationId,
  sender_type: SenderType,
  sender_id: Schema.NullOr(Uuid),
  customer_id: CustomerId,
  content: Schema.String,
  sent_at: Timestamp,
  is_internal: Schema.Boolean,
  from: Schema.Array(Schema.String),
  to: Schema.Array(Schema.String),
  cc: Schema.Array(Schema.String),
  bcc: Schema.Array(Schema.String),
  email_status: Schema.NullOr(Schema.String),
  email_error_message: Schema.NullOr(Schema.String),
  /** Read-only: the sources of an AI agent's reply; `[]` on every other message. */
  citations: Schema.Array(Citation).annotate({
    description: "Read-only. The sources of an AI agent's reply, best first; empty on every other message."
  }),
  created_at: Timestamp
}) {}

/** 1 MiB of content. */
export const MAX_CONTENT_LENGTH = 1_048_576
/** An addressing list: at most 100 entries of at most 320 characters (the longest an address can be). */
const Addresses = Schema.Array(BoundedString(320)).check(Schema.isMaxLength(100))

/** `POST /conversations/{id}/messages`: `sender_id` is required except for system messages. */
export class CreateMessage extends Model.Class<CreateMessage>("CreateMessage")({
  sender_type: SenderType,
  sender_id: Schema.optionalKey(Schema.NullOr(Uuid)),
  content: BoundedString(MAX_CONTENT_LENGTH).check(Schema.isMinLength(1)),
  is_internal: Schema.optionalKey(Schema.Boolean),
  from: Schema.optionalKey(Addresses),
  to: Schema.optionalKey(Addresses),
  cc: Schema.optionalKey(Addresses),
  bcc: Schema.optionalKey(Addresses),
  sent_at: Schema.optionalKey(Timestamp)
}) {}

/** `GET /messages`. */
export class ListMessages extends Model.Class<ListMessages>("ListMessages")({
  ...PageRequest.fields,
  sender_type: Schema.optionalKey(SenderType),
  conversation_id: Schema.optionalKey(ConversationId)
}) {}
