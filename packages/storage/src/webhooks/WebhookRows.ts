/**
 * The row schemas the webhooks modules share (subscriptions, deliveries, attempts, claims), and how rows become
 * core's models. Both dialects decode through them (PostgreSQL returns `Date`s and SQLite strings).
 */
import {
  Actor,
  type ClaimedDelivery,
  DeactivationReason,
  decryptSecret,
  DeliveryId,
  DeliveryStatus,
  Event,
  EventData,
  EventId,
  EventType,
  Model,
  OrganizationId,
  PersistenceError,
  type SecretCipherShape,
  Webhook,
  WebhookEventType,
  WebhookId,
  webhookSecretContext,
  WorkspaceId
} from "@support-engine/core"
import { type Cause, Effect, Redacted, Schema } from "effect"
import type { SqlError } from "effect/sql"
import { DbBoolean, DbInt, DbJson, DbTimestamp } from "../shared/Columns.js"
import { toPersistenceError } from "../shared/SqlErrors.js"

/** Maps driver and decoding failures of a multi-statement step; the `PersistenceError`s of helpers pass. */
export const persist = <A, R>(
  self: Effect.Effect<
    A,
    SqlError.SqlError | Schema.SchemaError | Cause.NoSuchElementError | PersistenceError,
    R
  >
): Effect.Effect<A, PersistenceError, R> =>
  Effect.mapError(self, (error) => error._tag === "PersistenceError" ? error : toPersistenceError(error))

export const WEBHOOKS = "webhooks"

export const WEBHOOK_COLUMNS = `id, url, description, events, is_active, consecutive_failures, deactivated_at,
  deactivation_reason, previous_secret_expires_at, created_at, updated_at`

export const WebhookRow = Schema.Struct({
  id: WebhookId,
  url: Schema.String,
  description: Schema.NullOr(Schema.String),
  events: DbJson(Schema.Array(WebhookEventType)),
  is_active: DbBoolean,
  consecutive_failures: DbInt,
  deactivated_at: Model.nullFirst(DbTimestamp),
  deactivation_reason: Schema.NullOr(DeactivationReason),
  previous_secret_expires_at: Model.nullFirst(DbTimestamp),
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})
export const toWebhook = (row: typeof WebhookRow.Type) => new Webhook(row)

export const DeliveryRow = Schema.Struct({
  id: DeliveryId,
  webhook_id: WebhookId,
  event_id: EventId,
  event: EventType,
  status: DeliveryStatus,
  attempts: DbInt,
  next_attempt_at: Model.nullFirst(DbTimestamp),
  last_attempt_at: Model.nullFirst(DbTimestamp),
  response_status: Model.nullFirst(DbInt),
  last_error: Schema.NullOr(Schema.String),
  delivered_at: Model.nullFirst(DbTimestamp),
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})

export const AttemptRow = Schema.Struct({
  delivery_id: DeliveryId,
  attempt: DbInt,
  attempted_at: DbTimestamp,
  duration_ms: DbInt,
  response_status: Model.nullFirst(DbInt),
  error: Schema.NullOr(Schema.String),
  response_excerpt: Schema.NullOr(Schema.String)
})

export const ClaimedRow = Schema.Struct({
  id: DeliveryId,
  workspace_id: WorkspaceId,
  webhook_id: WebhookId,
  attempts: DbInt,
  round_attempts: DbInt,
  requeues: DbInt,
  url: Schema.String,
  secret: Schema.RedactedFromValue(Schema.String),
  previous_secret: Schema.NullOr(Schema.RedactedFromValue(Schema.String)),
  previous_secret_expires_at: Model.nullFirst(DbTimestamp),
  organization_id: OrganizationId,
  event_id: EventId,
  event: EventType,
  occurred_at: DbTimestamp,
  actor_type: Actor.fields.type,
  actor_id: Actor.fields.id,
  data: DbJson(EventData)
})

export const decodeIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: DeliveryId })))

/**
 * A claimed row as the dispatcher needs it, its secrets decrypted (SecretsAtRest.ts). A value that does not decrypt
 * (changed in the database, since start checks the keys) fails the claim with a `PersistenceError`.
 */
export const toClaimed = (claimant: string, cipher: SecretCipherShape) =>
(
  row: typeof ClaimedRow.Type
): Effect.Effect<ClaimedDelivery, PersistenceError> =>
  Effect.gen(function*() {
    const context = webhookSecretContext(row.webhook_id)
    const open = (stored: Redacted.Redacted<string>) =>
      Effect.mapError(
        decryptSecret(cipher, Redacted.value(stored), context),
        (error) => new PersistenceError({ reason: `webhook ${row.webhook_id}: ${error.message}`, cause: error })
      )
    const current = yield* open(row.secret)
    const previous = row.previous_secret === null ? null : yield* open(row.previous_secret)
    return claimedOf(claimant, row, current, previous)
  })

const claimedOf = (
  claimant: string,
  row: typeof ClaimedRow.Type,
  current: Redacted.Redacted<string>,
  previous: Redacted.Redacted<string> | null
): ClaimedDelivery => ({
  id: row.id,
  workspaceId: row.workspace_id,
  organizationId: row.organization_id,
  webhookId: row.webhook_id,
  url: row.url,
  secrets: {
    current,
    previous,
    previousExpiresAt: row.previous_secret_expires_at
  },
  // Every field was checked when the row was decoded (ClaimedRow): the models need no second check.
  event: new Event({
    id: row.event_id,
    event: row.event,
    occurred_at: row.occurred_at,
    actor: new Actor({ type: row.actor_type, id: row.actor_id }, { disableChecks: true }),
    data: row.data
  }, { disableChecks: true }),
  attempts: row.attempts,
  roundAttempts: row.round_attempts,
  requeues: row.requeues,
  claimant
})
