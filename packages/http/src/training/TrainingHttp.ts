/** Handlers of `/training-data` (D20, D30, D31): translate and call `Training`. */
import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { ListTrainingData, Training } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { Api } from "../Api.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

export const TrainingHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"support-engine", "training">,
  never,
  Training | Authentication
> = HttpApiBuilder.group(Api, "training", (handlers) =>
  Effect.gen(function*() {
    const training = yield* Training
    return handlers
      .handle("create", ({ payload }) => training.create(payload).pipe(withETag))
      .handle("processUrls", ({ payload }) => Effect.map(training.processUrls(payload), (data) => ({ data })))
      .handle("urlExists", ({ urlParams }) => training.urlExists(urlParams))
      .handle("list", ({ urlParams }) => Effect.flatMap(training.list(new ListTrainingData(urlParams)), toList))
      .handle("get", ({ path }) => training.get(path.id).pipe(withETag))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          training.update(path.id, payload, options)).pipe(withETag))
      .handle("delete", ({ path }) =>
        Effect.flatMap(writeOptions, (options) => training.delete(path.id, options)))
      .handle("resync", ({ path }) => training.resync(path.id))
  }))
