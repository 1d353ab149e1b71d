/**
 * The `webhook.deactivated` event: recorded in the transaction that deactivates a webhook (a 410 or too many
 * failed deliveries in a row), in the event log like any event, and fanned out to the workspace's other
 * webhooks that subscribe to it (the deactivated one is inactive by then, so it gets nothing).
 */
import {
  Actor,
  type ClaimedDelivery,
  deactivationData,
  type DeactivationReason,
  Event,
  EventId,
  IdGenerator,
  Outbox,
  type PersistenceError,
  type WorkspaceId
} from "@support-engine/core"
import { type DateTime, Effect } from "effect"

/**
 * Makes `record(claimed, reason, at)`; `fanOutNow` makes the event's deliveries in the same transaction (SqlFanOut.ts:
 * the dispatcher's transaction takes no marker lock), so the event reaches its subscribers.
 */
export const makeDeactivationEvent = (
  fanOutNow: (workspaceId: WorkspaceId, event: Event) => Effect.Effect<void, PersistenceError>
) =>
  Effect.gen(function*() {
    const outbox = yield* Outbox
    const ids = yield* IdGenerator
    return (claimed: ClaimedDelivery, reason: DeactivationReason, at: DateTime.Utc) =>
      Effect.gen(function*() {
        const event = new Event({
          id: EventId.make(yield* ids.uuid),
          event: "webhook.deactivated",
          occurred_at: at,
          // The engine decided, on the receiver's answers: no token or user caused it.
          actor: Actor.system,
          data: deactivationData({ webhookId: claimed.webhookId, url: claimed.url, reason, at })
        })
        yield* outbox.append(claimed.workspaceId, event)
        yield* fanOutNow(claimed.workspaceId, event)
      })
  })
