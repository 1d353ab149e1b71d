/**
 * The body and headers of a delivery. The body is serialized once and both signatures are made over
 * exactly those bytes: `X-Service-Signature`, lowercase hex HMAC-SHA256 keyed with the secret string's UTF-8 bytes,
 * and the Standard Webhooks `webhook-signature`, `v1,<base64>` over `<id>.<timestamp>.<body>` keyed with the
 * base64-decoded part of the secret after `whsec_`.
 */
import {
  type DeliveryId,
  type Event,
  formatTimestamp,
  type OrganizationId,
  SECRET_PREFIX,
  type WebhookSecrets
} from "@support-engine/core"
import { DateTime, Redacted } from "effect"
import { createHmac } from "node:crypto"

/** What a delivery says: the event, once per webhook, under the delivery's id (same on every attempt). */
export interface DeliveryContent {
  readonly deliveryId: DeliveryId
  readonly organizationId: OrganizationId
  readonly event: Event
}

/** The body, field order fixed: `{"event","id","organization_id","data","occurred_at","actor"}`. */
export const serializeBody = ({ deliveryId, event, organizationId }: DeliveryContent): string =>
  JSON.stringify({
    event: event.event,
    id: deliveryId,
    organization_id: organizationId,
    data: event.data,
    occurred_at: formatTimestamp(event.occurred_at),
    actor: { type: event.actor.type, id: event.actor.id }
  })

/** `X-Service-Signature`: lowercase hex HMAC-SHA256 of the raw body, keyed with the secret's UTF-8 bytes. */
export const hexSignature = (body: string | Uint8Array, secret: string): string =>
  createHmac("sha256", Buffer.from(secret, "utf8")).update(body).digest("hex")

/** The Standard Webhooks key: the base64 after `whsec_`. */
export const standardKey = (secret: string): Buffer =>
  Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64")

/** One Standard Webhooks signature, `v1,<base64>` over `<id>.<timestamp>.<body>`. */
export const standardSignature = (id: string, timestamp: number, body: string | Uint8Array, secret: string): string => {
  const hmac = createHmac("sha256", standardKey(secret))
  hmac.update(`${id}.${timestamp}.`)
  hmac.update(body)
  return `v1,${hmac.digest("base64")}`
}

/** The secrets that sign at `now`: the current one, and the previous one while its grace period lasts. */
export const signingSecrets = (
  secrets: WebhookSecrets,
  now: DateTime.Utc
): { readonly current: string; readonly previous: string | null } => ({
  current: Redacted.value(secrets.current),
  previous: secrets.previous !== null && secrets.previousExpiresAt !== null &&
      DateTime.isLessThan(now, secrets.previousExpiresAt)
    ? Redacted.value(secrets.previous)
    : null
})

export interface SignedDelivery {
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
}

export const USER_AGENT = "support-engine-webhooks/1"

/** The body and every header of one attempt at `now` (the Standard Webhooks timestamp is the attempt's). */
export const signDelivery = (content: DeliveryContent, secrets: WebhookSecrets, now: DateTime.Utc): SignedDelivery => {
  const body = serializeBody(content)
  const timestamp = Math.floor(DateTime.toEpochMillis(now) / 1000)
  const { current, previous } = signingSecrets(secrets, now)
  const signatures = [current, ...(previous === null ? [] : [previous])]
    .map((secret) => standardSignature(content.deliveryId, timestamp, body, secret))
  return {
    body,
    headers: {
      "Content-Type": "application/json",
      "User-Agent": USER_AGENT,
      "X-Service-Event": content.event.event,
      "X-Service-Delivery": content.deliveryId,
      "X-Service-Event-Id": content.event.id,
      "X-Service-Signature": hexSignature(body, current),
      ...(previous === null ? {} : { "X-Service-Signature-Previous": hexSignature(body, previous) }),
      "webhook-id": content.deliveryId,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatures.join(" ")
    }
  }
}
