/**
 * Storage port for the webhook operations that act on the delivery queue for one webhook: a ping (a test
 * event addressed to that webhook alone) and a recovery (its failed deliveries queued again). Apart from
 * `WebhookRepo` so that subscriptions and these operations can change independently.
 */
import { Context, type DateTime, type Effect } from "effect"
import type { Event } from "../events/Event.js"
import type { PersistenceError } from "../shared/Errors.js"
import type { DeliveryId, WebhookId, WorkspaceId } from "../shared/Ids.js"

export interface RecoveryRange {
  readonly since: DateTime.Utc
  readonly until: DateTime.Utc | null
}

export class WebhookOps extends Context.Service<WebhookOps, {
  /**
   * Stores `event` addressed to the webhook alone (kept out of the event log and of every other webhook's fan-out)
   * and queues one delivery `deliveryId` of it: due at the event's time when the webhook is active, paused until
   * `enable` otherwise. Runs in the caller's transaction.
   */
  readonly ping: (
    workspaceId: WorkspaceId,
    webhookId: WebhookId,
    event: Event,
    deliveryId: DeliveryId
  ) => Effect.Effect<void, PersistenceError>
  /**
   * Queues again, with a fresh attempt budget, the webhook's deliveries that failed or were cancelled and were
   * created in the range (`since` included, `until` excluded): due at `at` when the webhook is active, paused until
   * `enable` otherwise. Returns how many.
   */
  readonly recover: (
    workspaceId: WorkspaceId,
    webhookId: WebhookId,
    range: RecoveryRange,
    at: DateTime.Utc
  ) => Effect.Effect<number, PersistenceError>
}>()("@support-engine/core/WebhookOps") {}
