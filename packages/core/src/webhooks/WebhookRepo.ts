/**
 * Storage ports for webhooks: `WebhookRepo` for subscriptions and their delivery log (every method scoped by
 * workspace, D11), and `DeliveryQueue`, the durable work queue the dispatcher claims deliveries from (D38).
 * Deliveries themselves are created by the outbox, in the transaction of their event (D34, D37).
 */
import { Context, Data, type DateTime, type Effect, type Option, type Redacted } from "effect"
import type { Event } from "../events/Event.js"
import type { PersistenceError } from "../shared/Errors.js"
import type { DeliveryId, OrganizationId, WebhookId, WorkspaceId } from "../shared/Ids.js"
import type { Slice, SliceRequest } from "../shared/Repository.js"
import type { DeliveryStatus, Webhook, WebhookDelivery } from "./Webhook.js"

/** The signing secrets of a webhook: the current one and, during a rotation grace period, the previous (D46). */
export interface WebhookSecrets {
  readonly current: Redacted.Redacted<string>
  readonly previous: Redacted.Redacted<string> | null
  readonly previousExpiresAt: DateTime.Utc | null
}

export interface DeliveryFilter {
  readonly status?: DeliveryStatus | undefined
}

export class WebhookRepo extends Context.Tag("@support-engine/core/WebhookRepo")<WebhookRepo, {
  /** Inserts the webhook with its secret and its subscribed types (already normalized). */
  readonly insert: (
    workspaceId: WorkspaceId,
    webhook: Webhook,
    secret: Redacted.Redacted<string>
  ) => Effect.Effect<void, PersistenceError>
  readonly findById: (
    workspaceId: WorkspaceId,
    id: WebhookId
  ) => Effect.Effect<Option.Option<Webhook>, PersistenceError>
  /** Writes `url`, `events`, `description` and `updated_at`. */
  readonly update: (workspaceId: WorkspaceId, webhook: Webhook) => Effect.Effect<void, PersistenceError>
  /** Deletes the webhook and its deliveries. False when absent. */
  readonly delete: (workspaceId: WorkspaceId, id: WebhookId) => Effect.Effect<boolean, PersistenceError>
  /** Newest first (D18); `total` from the workspace counter. */
  readonly list: (workspaceId: WorkspaceId, slice: SliceRequest) => Effect.Effect<Slice<Webhook>, PersistenceError>
  /**
   * Makes `secret` the current secret (D46). With `previousExpiresAt`, the secret it replaces keeps signing until
   * then; with null it stops at once. Any earlier previous secret is dropped. Sets `updated_at`.
   */
  readonly rotateSecret: (
    workspaceId: WorkspaceId,
    id: WebhookId,
    secret: Redacted.Redacted<string>,
    previousExpiresAt: DateTime.Utc | null,
    at: DateTime.Utc
  ) => Effect.Effect<void, PersistenceError>
  /**
   * Activates the webhook, resets its failure count, and makes its paused deliveries (redelivered while it was
   * inactive) due at `at`.
   */
  readonly enable: (workspaceId: WorkspaceId, id: WebhookId, at: DateTime.Utc) => Effect.Effect<void, PersistenceError>
  readonly findDelivery: (
    workspaceId: WorkspaceId,
    webhookId: WebhookId,
    id: DeliveryId
  ) => Effect.Effect<Option.Option<WebhookDelivery>, PersistenceError>
  /** The webhook's deliveries, newest first, each with the latest attempts of its log. */
  readonly listDeliveries: (
    workspaceId: WorkspaceId,
    webhookId: WebhookId,
    filter: DeliveryFilter,
    slice: SliceRequest
  ) => Effect.Effect<Slice<WebhookDelivery>, PersistenceError>
  /**
   * Queues the delivery again with a fresh attempt budget: pending and due at `at` when its webhook is active,
   * pending and paused until `enable` otherwise. A claim in flight is dropped (its answer is no longer recorded).
   */
  readonly redeliver: (
    workspaceId: WorkspaceId,
    webhookId: WebhookId,
    id: DeliveryId,
    at: DateTime.Utc
  ) => Effect.Effect<void, PersistenceError>
}>() {}

/** A delivery taken by one dispatcher under a lease, with everything needed to send it. */
export interface ClaimedDelivery {
  readonly id: DeliveryId
  readonly workspaceId: WorkspaceId
  readonly organizationId: OrganizationId
  readonly webhookId: WebhookId
  readonly url: string
  readonly secrets: WebhookSecrets
  readonly event: Event
  /** Attempts made before this one, redeliveries included. */
  readonly attempts: number
  /** Attempts made before this one in the current round (since creation or the last redelivery, D38). */
  readonly roundAttempts: number
  /** The dispatcher holding the lease. */
  readonly claimant: string
}

/** What became of one attempt (D38). */
export type DeliveryOutcome = Data.TaggedEnum<{
  /** A 2xx: the delivery is done and the webhook's failure count resets. */
  Delivered: {}
  /** Another attempt is due at `at`. */
  Retry: { readonly at: DateTime.Utc }
  /**
   * The attempt budget is spent: the delivery failed and the webhook's failure count grows; at `deactivateAfter`
   * the webhook is deactivated and its pending deliveries cancelled.
   */
  Failed: { readonly deactivateAfter: number }
  /** A 410: the delivery failed, the webhook is deactivated at once and its pending deliveries cancelled. */
  Gone: {}
}>
export const DeliveryOutcome = Data.taggedEnum<DeliveryOutcome>()

/** The record of one attempt, kept in the delivery's log. */
export interface AttemptRecord {
  readonly attemptedAt: DateTime.Utc
  readonly durationMs: number
  readonly responseStatus: number | null
  readonly error: string | null
  readonly responseExcerpt: string | null
}

/** One finished attempt to record: the claim it was made under, its record and what it meant (D38). */
export interface Completion {
  readonly claimed: ClaimedDelivery
  readonly attempt: AttemptRecord
  readonly outcome: DeliveryOutcome
}

/** What a dispatcher asks to lease: at most `limit` deliveries due at `now`, held by `claimant` until `leaseUntil`. */
export interface ClaimRequest {
  readonly now: DateTime.Utc
  readonly leaseUntil: DateTime.Utc
  readonly claimant: string
  readonly limit: number
}

export class DeliveryQueue extends Context.Tag("@support-engine/core/DeliveryQueue")<DeliveryQueue, {
  /**
   * Leases at most `limit` due deliveries of active webhooks (earliest first) to `claimant` until `leaseUntil`,
   * in one statement, so two dispatchers never hold the same delivery (D38, D43). A delivery whose lease has
   * expired is due again.
   */
  readonly claimDue: (request: ClaimRequest) => Effect.Effect<ReadonlyArray<ClaimedDelivery>, PersistenceError>
  /**
   * Records the attempt and applies its outcome, unless the claim was lost meanwhile (the lease expired and
   * another dispatcher took it, or the delivery was redelivered): then nothing is written and the result is false.
   */
  readonly complete: (
    claimed: ClaimedDelivery,
    attempt: AttemptRecord,
    outcome: DeliveryOutcome,
    at: DateTime.Utc
  ) => Effect.Effect<boolean, PersistenceError>
  /**
   * Records several attempts, in order, each exactly as `complete` would (`held` says, for each, whether its claim
   * still held), then leases what `next` asks for as `claimDue` would (nothing when its limit is 0), all in one
   * transaction. A busy dispatcher hands back the attempts that finished together and takes their replacements in
   * the same commit: a few statements per batch instead of a transaction per attempt and one per claim.
   */
  readonly completeAndClaim: (
    completions: ReadonlyArray<Completion>,
    at: DateTime.Utc,
    next: ClaimRequest
  ) => Effect.Effect<
    { readonly held: ReadonlyArray<boolean>; readonly claimed: ReadonlyArray<ClaimedDelivery> },
    PersistenceError
  >
  /** Gives back every lease `claimant` holds: those deliveries are due at `at` (a graceful stop). */
  readonly release: (claimant: string, at: DateTime.Utc) => Effect.Effect<number, PersistenceError>
  /** When the earliest pending delivery of an active webhook falls due (possibly in the past). */
  readonly nextDueAt: Effect.Effect<Option.Option<DateTime.Utc>, PersistenceError>
  /**
   * A signal for work committed by this process: the inner effect completes at the first commit of new or
   * rescheduled deliveries after the outer one ran. Take it before looking for work, so nothing slips between.
   */
  readonly changes: Effect.Effect<Effect.Effect<void>>
}>() {}
