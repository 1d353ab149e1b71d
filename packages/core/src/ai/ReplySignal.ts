import { Context, Layer } from "effect"
import { makeWakeUp } from "../shared/WakeUp.js"

/** Wakes the reply worker when a customer message enqueued a reply job, so answering does not wait for a poll. */
export class ReplySignal extends Context.Service<ReplySignal>()("@support-engine/core/ReplySignal", {
  make: makeWakeUp
}) {
  static readonly layer = Layer.effect(this, this.make)
}
