/**
 * The subscriptions port: webhooks and their delivery log, every method scoped by workspace. Deliveries are
 * created and worked through the other webhooks port, `DeliveryQueue`.
 */
import { Context, type DateTime, type Effect, type Option, type Redacted } from "effect"
import type { PersistenceError } from "../shared/Errors.js"
import type { DeliveryId, WebhookId, WorkspaceId } from "../shared/Ids.js"
import type { Slice, SliceRequest } from "../shared/Repository.js"
import type { DeliveryStatus, Webhook, WebhookDelivery } from "./Webhook.js"

/** The signing secrets of a webhook: the current one and, during a rotation grace period, the previous. */
export interface WebhookSecrets {
  readonly current: Redacted.Redacted<string>
  readonly previous: Redacted.Redacted<string> | null
  readonly previousExpiresAt: DateTime.Utc | null
}

export interface DeliveryFilter {
  readonly status?: DeliveryStatus | undefined
}

export class WebhookRepo extends Context.Service<WebhookRepo, {
  /** Inserts the webhook with its secret and its subscribed types (already normalized). */
  readonly insert: (
    workspaceId: WorkspaceId,
    webhook: Webhook,
    secret: Redacted.Redacted<string>
  ) => Effect.Effect<void, PersistenceError>
  /**
   * First in every transaction that changes which webhooks of the workspace get which events (create, update,
   * delete, enable): the workspace's events still waiting for their fan-out get their deliveries now, under the
   * subscriptions they committed with, and concurrent changes and writers of the workspace wait
   * for each other until the transaction ends, so concurrent creates count one after another.
   */
  readonly lockSubscriptions: (workspaceId: WorkspaceId) => Effect.Effect<void, PersistenceError>
  /** How many webhooks the workspace has, read after `lockSubscriptions` in the insert's transaction. */
  readonly countForInsert: (workspaceId: WorkspaceId) => Effect.Effect<number, PersistenceError>
  readonly findById: (
    workspaceId: WorkspaceId,
    id: WebhookId
  ) => Effect.Effect<Option.Option<Webhook>, PersistenceError>
  /** Writes `url`, `events`, `description` and `updated_at`. */
  readonly update: (workspaceId: WorkspaceId, webhook: Webhook) => Effect.Effect<void, PersistenceError>
  /** Deletes the webhook and its deliveries. False when absent. */
  readonly delete: (workspaceId: WorkspaceId, id: WebhookId) => Effect.Effect<boolean, PersistenceError>
  /** Newest first; `total` from the workspace counter. */
  readonly list: (workspaceId: WorkspaceId, slice: SliceRequest) => Effect.Effect<Slice<Webhook>, PersistenceError>
  /**
   * Makes `secret` the current secret. With `previousExpiresAt`, the secret it replaces keeps signing until
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
   * Erases, in every workspace, the previous secrets whose grace period ended by `at`, with their expiry:
   * an expired secret is not kept at rest. Answers how many.
   */
  readonly erasePreviousSecrets: (at: DateTime.Utc) => Effect.Effect<number, PersistenceError>
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
}>()("@support-engine/core/WebhookRepo") {}
