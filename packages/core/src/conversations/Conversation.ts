/** Conversations (spec "Conversation"). */
import { Schema } from "effect"
import { AgentId, ConversationId, CustomerId, Uuid } from "../shared/Ids.js"
import * as Model from "../shared/Model.js"
import { PageRequest } from "../shared/Pagination.js"
import { SearchText } from "../shared/TextSearch.js"
import { formatNullableTimestamp, formatTimestamp, NullableTimestamp, Timestamp } from "../shared/Timestamp.js"
import { BoundedString } from "../shared/Validation.js"

export const ConversationChannel = Schema.Literals(["email", "chat"])
export const ConversationStatus = Schema.Literals(["open", "closed"])
export const ConversationPriority = Schema.Literals(["low", "normal", "high", "urgent"])
export const AssigneeType = Schema.Literals(["user", "agent"])

export class Conversation extends Model.Class<Conversation>("Conversation")({
  id: ConversationId,
  channel: ConversationChannel,
  customer_id: CustomerId,
  agent_id: Schema.NullOr(AgentId),
  subject: Schema.NullOr(Schema.String),
  status: ConversationStatus,
  priority: ConversationPriority,
  assignee_id: Schema.NullOr(Uuid),
  assignee_type: Schema.NullOr(AssigneeType),
  tags: Schema.Array(Schema.String),
  closed_at: NullableTimestamp,
  first_response_at: NullableTimestamp,
  last_message_at: NullableTimestamp,
  is_spam: Schema.Boolean,
  spam_score: Schema.Int,
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

const Subject = Schema.NullOr(BoundedString(500))
/** A tag: 1 to 255 characters; a conversation holds at most 100 (a set: duplicates collapse). */
const Tags = Schema.Array(BoundedString(255).check(Schema.isMinLength(1))).check(Schema.isMaxLength(100))

/** `POST /conversations`. */
export class CreateConversation extends Model.Class<CreateConversation>("CreateConversation")({
  customer_id: CustomerId,
  subject: Schema.optionalKey(Subject),
  channel: Schema.optionalKey(ConversationChannel),
  priority: Schema.optionalKey(ConversationPriority),
  assignee_id: Schema.optionalKey(Schema.NullOr(Uuid)),
  assignee_type: Schema.optionalKey(Schema.NullOr(AssigneeType)),
  agent_id: Schema.optionalKey(Schema.NullOr(AgentId)),
  tags: Schema.optionalKey(Tags)
}) {}

/** `PUT /conversations/{id}`. */
export class UpdateConversation extends Model.Class<UpdateConversation>("UpdateConversation")({
  subject: Schema.optionalKey(Subject),
  status: Schema.optionalKey(ConversationStatus),
  priority: Schema.optionalKey(ConversationPriority),
  assignee_id: Schema.optionalKey(Schema.NullOr(Uuid)),
  assignee_type: Schema.optionalKey(Schema.NullOr(AssigneeType)),
  is_spam: Schema.optionalKey(Schema.Boolean),
  tags: Schema.optionalKey(Tags)
}) {}

/** `GET /conversations`. */
export class ListConversations extends Model.Class<ListConversations>("ListConversations")({
  ...PageRequest.fields,
  status: Schema.optionalKey(ConversationStatus),
  priority: Schema.optionalKey(ConversationPriority),
  channel: Schema.optionalKey(ConversationChannel),
  customer_id: Schema.optionalKey(CustomerId),
  assignee_id: Schema.optionalKey(Uuid),
  /** Search the subject and every message's content: every word as a prefix, best match first. */
  q: Schema.optionalKey(SearchText)
}) {}

/**
 * The exact `conversation.created` data of the specification: `title` is the subject. Written field by field, in
 * the form the API answers with: every create and update records it, and encoding the whole conversation through
 * its schema to keep ten fields costs more than the rest of building the event.
 */
export const createdData = (c: Conversation) => ({
  id: c.id,
  title: c.subject,
  status: c.status,
  priority: c.priority,
  channel: c.channel,
  assignee_id: c.assignee_id,
  assignee_type: c.assignee_type,
  customer_id: c.customer_id,
  created_at: formatTimestamp(c.created_at),
  updated_at: formatTimestamp(c.updated_at)
})

/** Data of the other conversation events: the created shape plus tags and closed_at. */
export const eventData = (c: Conversation) => ({
  ...createdData(c),
  tags: [...c.tags],
  closed_at: formatNullableTimestamp(c.closed_at)
})
