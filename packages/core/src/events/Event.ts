/**
 * Recorded events: what webhooks deliver and `GET /events` lists.
 */
import { Schema } from "effect"
import { EventId } from "../shared/Ids.js"
import * as Model from "../shared/Model.js"
import { Actor } from "../shared/Principal.js"
import { Timestamp } from "../shared/Timestamp.js"

export const EventType = Schema.Literals([
  "conversation.created",
  "conversation.deleted",
  "conversation.assigned.updated",
  "conversation.status.updated",
  "conversation.priority.updated",
  "conversation.tags.updated",
  "conversation.customer.message.created",
  "conversation.user.message.created",
  // The AI reply loop: an agent's reply, and a handoff to a person with its reason.
  "conversation.agent.message.created",
  "conversation.escalated",
  "customer.created",
  "customer.updated",
  "customer.deleted",
  // A customer's personal data removed: data `{"id"}`; the events that carried their data are redacted.
  "customer.erased",
  "agent.created",
  "agent.updated",
  "agent.deleted",
  "training.created",
  "training.updated",
  "training.deleted",
  "training.agent.assigned",
  // Webhook operations: a test delivery to one webhook (not in the event log), and a deactivation.
  "webhook.ping",
  "webhook.deactivated"
])
export type EventType = typeof EventType.Type

/** JSON data as the API returns it: already encoded, so the outbox stores exactly what is delivered. */
export const EventData = Schema.Record(Schema.String, Schema.Unknown)
export type EventData = typeof EventData.Type

export class Event extends Model.Class<Event>("Event")({
  id: EventId,
  event: EventType,
  occurred_at: Timestamp,
  actor: Actor,
  data: EventData
}) {}
