import { Context, Layer } from "effect"
import { makeWakeUp } from "../shared/WakeUp.js"

/** Wakes the training worker when items are queued, so processing does not wait for the next poll. */
export class TrainingSignal extends Context.Service<TrainingSignal>()("@support-engine/core/TrainingSignal", {
  make: makeWakeUp
}) {
  static readonly layer = Layer.effect(this, this.make)
}
