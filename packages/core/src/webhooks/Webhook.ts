/**
 * Webhook subscriptions and their deliveries: the models the API returns and the requests it takes.
 */
import { type DateTime, Schema } from "effect"
import { type EventData, EventType } from "../events/Event.js"
import { DeliveryId, EventId, WebhookId } from "../shared/Ids.js"
import * as Model from "../shared/Model.js"
import { PageRequest } from "../shared/Pagination.js"
import { formatTimestamp, NullableTimestamp, Timestamp } from "../shared/Timestamp.js"
import { HttpUrl, Text } from "../shared/Validation.js"

/**
 * An event type a webhook subscribes to, or `*` for every type. `webhook.ping` is not one: a ping goes to the
 * pinged webhook alone, whatever it subscribes to.
 */
export const WebhookEventType = Schema.Union([
  EventType.check(Schema.makeFilter((type) => type !== "webhook.ping", {
    message: "webhook.ping cannot be subscribed to: POST /webhooks/{id}/ping sends it to one webhook."
  })),
  Schema.Literal("*")
])
export type WebhookEventType = typeof WebhookEventType.Type

/** Why a webhook stopped receiving deliveries: a 410 answer, or too many failed deliveries in a row. */
export const DeactivationReason = Schema.Literals(["gone", "consecutive_failures"])
export type DeactivationReason = typeof DeactivationReason.Type

/**
 * The data of a `webhook.deactivated` event: which webhook, its URL, why (`gone` or `consecutive_failures`)
 * and when. Other webhooks of the workspace subscribed to the type receive it, so an integration can alert on it.
 */
export const deactivationData = (input: {
  readonly webhookId: WebhookId
  readonly url: string
  readonly reason: DeactivationReason
  readonly at: DateTime.Utc
}): EventData => ({
  webhook_id: input.webhookId,
  url: input.url,
  reason: input.reason,
  deactivated_at: formatTimestamp(input.at)
})

/** A subscription as the API returns it. The secret is never part of it (shown on create and rotate only). */
export class Webhook extends Model.Class<Webhook>("Webhook")({
  id: WebhookId,
  url: Schema.String,
  events: Schema.Array(WebhookEventType),
  description: Schema.NullOr(Schema.String),
  is_active: Schema.Boolean,
  /** Failed deliveries since the last successful one; reset by a success and by `enable`. */
  consecutive_failures: Schema.Int,
  deactivated_at: NullableTimestamp,
  deactivation_reason: Schema.NullOr(DeactivationReason),
  /** End of the rotation grace period during which the previous secret still signs; null when none. */
  previous_secret_expires_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

/** The answer to create and rotate-secret: the webhook and its (new) secret, `whsec_` + base64. */
export class WebhookWithSecret extends Model.Class<WebhookWithSecret>("WebhookWithSecret")({
  ...Webhook.fields,
  secret: Schema.RedactedFromValue(Schema.String)
}) {}

/** Where a delivery stands. `cancelled`: its webhook was deactivated before it was delivered. */
export const DeliveryStatus = Schema.Literals(["pending", "delivered", "failed", "cancelled"])
export type DeliveryStatus = typeof DeliveryStatus.Type

/** One attempt to deliver: when, how long, and the receiver's answer or the error. */
export class DeliveryAttempt extends Model.Class<DeliveryAttempt>("DeliveryAttempt")({
  /** 1 for the first attempt of the delivery; redeliveries continue the count. */
  attempt: Schema.Int,
  attempted_at: Timestamp,
  duration_ms: Schema.Int,
  response_status: Schema.NullOr(Schema.Int),
  /** Timeout, connection error, refused address, or null when the receiver answered. */
  error: Schema.NullOr(Schema.String),
  /** The start of the answer's body, at most 1,024 characters. */
  response_excerpt: Schema.NullOr(Schema.String)
}) {}

/** A delivery: one event for one webhook, with its attempt log. */
export class WebhookDelivery extends Model.Class<WebhookDelivery>("WebhookDelivery")({
  id: DeliveryId,
  webhook_id: WebhookId,
  event_id: EventId,
  event: EventType,
  status: DeliveryStatus,
  /** Attempts made so far, redeliveries included. */
  attempts: Schema.Int,
  /** When the next attempt is due; null when none is scheduled (delivered, failed, cancelled, or paused). */
  next_attempt_at: NullableTimestamp,
  last_attempt_at: NullableTimestamp,
  response_status: Schema.NullOr(Schema.Int),
  last_error: Schema.NullOr(Schema.String),
  delivered_at: NullableTimestamp,
  /** The latest attempts, oldest first (at most `ATTEMPT_LOG_LIMIT`). */
  attempt_log: Schema.Array(DeliveryAttempt),
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

/** How many attempts a delivery shows in its log: the full budget of one round and a redelivery's. */
export const ATTEMPT_LOG_LIMIT = 20

/** The longest rotation grace period a call may ask for: 7 days. */
export const MAX_GRACE_PERIOD_SECONDS = 7 * 24 * 60 * 60
/** The rotation grace period when the call does not say: 24 hours. */
export const DEFAULT_GRACE_PERIOD_SECONDS = 24 * 60 * 60

const Events = Schema.Array(WebhookEventType).check(
  Schema.isMinLength(1),
  Schema.isMaxLength(100) // Bounded, like every list a request carries.
)
const Description = Schema.NullOr(Text)

/** `POST /webhooks`. Whether the URL is allowed (https, no private address) is checked by the service. */
export class CreateWebhook extends Model.Class<CreateWebhook>("CreateWebhook")({
  url: HttpUrl,
  events: Events,
  description: Schema.optionalKey(Description)
}) {}

/** `PUT /webhooks/{id}`: present fields change, absent ones stay. */
export class UpdateWebhook extends Model.Class<UpdateWebhook>("UpdateWebhook")({
  url: Schema.optionalKey(HttpUrl),
  events: Schema.optionalKey(Events),
  description: Schema.optionalKey(Description)
}) {}

/** `POST /webhooks/{id}/rotate-secret`: the grace period in seconds, 0 to 7 days, default 24 hours. */
export class RotateWebhookSecret extends Model.Class<RotateWebhookSecret>("RotateWebhookSecret")({
  grace_period_seconds: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: MAX_GRACE_PERIOD_SECONDS }))
  )
}) {}

/** `GET /webhooks`. */
export class ListWebhooks extends Model.Class<ListWebhooks>("ListWebhooks")({
  ...PageRequest.fields
}) {}

/** `GET /webhooks/{id}/deliveries`, newest first, optionally one status. */
export class ListWebhookDeliveries extends Model.Class<ListWebhookDeliveries>("ListWebhookDeliveries")({
  ...PageRequest.fields,
  status: Schema.optionalKey(DeliveryStatus)
}) {}

/**
 * `POST /webhooks/{id}/recover` (like Svix's recover): queue again the webhook's deliveries that failed or
 * were cancelled, created at or after `since` and, when given, before `until`.
 */
export class RecoverWebhook extends Model.Class<RecoverWebhook>("RecoverWebhook")({
  since: Timestamp,
  until: Schema.optionalKey(Timestamp)
}) {}

/** The answer to recover (202): how many deliveries were queued again. */
export class WebhookRecovery extends Model.Class<WebhookRecovery>("WebhookRecovery")({
  webhook_id: WebhookId,
  since: Timestamp,
  until: NullableTimestamp,
  /** Deliveries queued again; they are due now, or when the webhook is enabled if it is deactivated. */
  recovered: Schema.Int
}) {}

/**
 * The subscribed types as stored: duplicates removed, and `*` alone when it is listed, since it already
 * covers every type.
 */
export const normalizeEvents = (events: ReadonlyArray<WebhookEventType>): ReadonlyArray<WebhookEventType> =>
  events.includes("*") ? ["*"] : [...new Set(events)]
