/**
 * The delivery-queue port: the durable work queue of webhook deliveries. The events feature enqueues
 * an event in the event's transaction (`enqueue`); the dispatcher makes the deliveries of many enqueued events at
 * once (`fanOut`), claims due ones under a lease, records each attempt and gives its leases back when it stops.
 */
import { Context, Data, type DateTime, type Effect, type Option } from "effect"
import type { Event } from "../events/Event.js"
import type { PersistenceError } from "../shared/Errors.js"
import type { DeliveryId, OrganizationId, WebhookId, WorkspaceId } from "../shared/Ids.js"
import type { WebhookSecrets } from "./WebhookRepo.js"

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
  /** Attempts made before this one in the current round (since creation or the last redelivery). */
  readonly roundAttempts: number
  /**
   * Redeliveries and recoveries of the delivery before this claim: an attempt is recorded only while the
   * delivery is still in the round it was claimed in, so an attempt that was in flight when the delivery was queued
   * again neither completes the new round nor counts towards deactivation.
   */
  readonly requeues: number
  /** The dispatcher holding the lease. */
  readonly claimant: string
}

/** What became of one attempt. */
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

/** One finished attempt to record: the claim it was made under, its record and what it meant. */
export interface Completion {
  readonly claimed: ClaimedDelivery
  readonly attempt: AttemptRecord
  readonly outcome: DeliveryOutcome
}

/**
 * What a dispatcher asks to lease: at most `limit` deliveries due at `now`, held by `claimant` until `leaseUntil`.
 * `perWebhook` and `perWorkspace` bound the attempts in flight (leases not yet expired, every claimant counted) of
 * one webhook and of one workspace; absent, only `limit` bounds them.
 */
export interface ClaimRequest {
  readonly now: DateTime.Utc
  readonly leaseUntil: DateTime.Utc
  readonly claimant: string
  readonly limit: number
  readonly perWebhook?: number
  readonly perWorkspace?: number
}

export class DeliveryQueue extends Context.Service<DeliveryQueue, {
  /**
   * Records, in the caller's transaction, that `event` is to be fanned out: a committed event
   * always gets its deliveries, a rolled-back one none. They are made by `fanOut`, one pending delivery due at the
   * event's time for every webhook of the workspace that was active and subscribed to its type or to `*` when the
   * event committed. Wakes this process's dispatchers after the commit.
   */
  readonly enqueue: (workspaceId: WorkspaceId, event: Event) => Effect.Effect<void, PersistenceError>
  /**
   * Makes the deliveries of the oldest enqueued events, at most `limit` of them, in one transaction; answers how
   * many events it fanned out (fewer than `limit`: none was left, or another dispatcher has the rest). Two
   * dispatchers never fan out the same event.
   */
  readonly fanOut: (limit: number) => Effect.Effect<number, PersistenceError>
  /**
   * Leases at most `limit` due deliveries of active webhooks to `claimant` until `leaseUntil`, in one statement, so
   * two dispatchers never hold the same delivery. Fair: within the request's limits, round-robin across
   * workspaces (the least busy first) and within one across its webhooks, each webhook's oldest due first. A
   * delivery whose lease has expired is due again.
   */
  readonly claimDue: (request: ClaimRequest) => Effect.Effect<ReadonlyArray<ClaimedDelivery>, PersistenceError>
  /**
   * Records the attempt and applies its outcome, unless the claim was lost meanwhile (the lease expired and
   * another dispatcher took it, or the delivery was redelivered or recovered, even if this dispatcher has claimed it
   * again since): then nothing is written and the result is false.
   */
  readonly complete: (
    claimed: ClaimedDelivery,
    attempt: AttemptRecord,
    outcome: DeliveryOutcome,
    at: DateTime.Utc
  ) => Effect.Effect<boolean, PersistenceError>
  /**
   * Records several attempts, in order, each exactly as `complete` would (`held` says, for each, whether its claim
   * still held; `deactivated` lists the webhooks these attempts deactivated), then leases what `next` asks for as
   * `claimDue` would (nothing when its limit is 0), all in one transaction. A busy dispatcher hands back the attempts that finished together and takes their replacements in
   * the same commit: a few statements per batch instead of a transaction per attempt and one per claim.
   */
  readonly completeAndClaim: (
    completions: ReadonlyArray<Completion>,
    at: DateTime.Utc,
    next: ClaimRequest
  ) => Effect.Effect<
    {
      readonly held: ReadonlyArray<boolean>
      readonly deactivated: ReadonlyArray<WebhookId>
      readonly claimed: ReadonlyArray<ClaimedDelivery>
    },
    PersistenceError
  >
  /** Gives back every lease `claimant` holds: those deliveries are due at `at` (a graceful stop). */
  readonly release: (claimant: string, at: DateTime.Utc) => Effect.Effect<number, PersistenceError>
  /** When the earliest pending delivery of an active webhook falls due (possibly in the past). */
  readonly nextDueAt: Effect.Effect<Option.Option<DateTime.Utc>, PersistenceError>
  /** When the earliest pending delivery of an active webhook falls due strictly after `at`. */
  readonly nextDueAfter: (at: DateTime.Utc) => Effect.Effect<Option.Option<DateTime.Utc>, PersistenceError>
  /**
   * A signal for work committed by this process: the inner effect completes at the first commit of new or
   * rescheduled deliveries after the outer one ran. Take it before looking for work, so nothing slips between.
   */
  readonly changes: Effect.Effect<Effect.Effect<void>>
  /**
   * The workspaces whose new deliveries this process committed since the last call, or "any" when some other change
   * (a retry, a release, a redelivery, ...) may have made work due anywhere. A dispatcher whose every listed
   * workspace is at its in-flight limit need not look for work.
   */
  readonly changedWorkspaces: Effect.Effect<ReadonlySet<WorkspaceId> | "any">
}>()("@support-engine/core/DeliveryQueue") {}
