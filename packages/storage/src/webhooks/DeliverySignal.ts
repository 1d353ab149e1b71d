import { makeWakeUp } from "@support-engine/core"
import { Effect } from "effect"

/**
 * Wakes the dispatchers of this process when deliveries are created or rescheduled: core's one wake-up primitive,
 * one per storage layer. Writers notify after their transaction commits; other processes' work is found by the
 * dispatcher's fallback poll.
 */
export class DeliverySignal extends Effect.Service<DeliverySignal>()("@support-engine/storage/DeliverySignal", {
  effect: makeWakeUp
}) {}
