/**
 * What turns a queued training item into training: crawling, embedding, indexing. Hosts provide their own;
 * the default completes every item and records a url item's own URL as its one discovered page.
 */
import { Context, Effect, Layer } from "effect"
import type { TrainingDataItem } from "./TrainingData.js"

export type ProcessingOutcome =
  | { readonly _tag: "Completed"; readonly pages: ReadonlyArray<string> }
  | { readonly _tag: "Failed"; readonly reason: string }

export class TrainingProcessor extends Context.Service<TrainingProcessor, {
  /** Never fails: a processing failure is an outcome (the item becomes `failed`), a defect is treated the same. */
  readonly process: (item: TrainingDataItem) => Effect.Effect<ProcessingOutcome>
}>()("@support-engine/core/TrainingProcessor") {
  static readonly layer: Layer.Layer<TrainingProcessor> = Layer.succeed(TrainingProcessor, {
    process: (item) =>
      Effect.succeed({ _tag: "Completed", pages: item.type === "url" && item.source !== null ? [item.source] : [] })
  })
}
