import { Effect } from "effect"
import { makeWakeUp } from "../shared/WakeUp.js"

/** Wakes the training worker when items are queued, so processing does not wait for the next poll. */
export class TrainingSignal extends Effect.Service<TrainingSignal>()("@support-engine/core/TrainingSignal", {
  effect: makeWakeUp
}) {}
