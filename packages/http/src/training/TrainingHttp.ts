/** Handlers of `/training-data`: translate and call `Training`. */
import { ListTrainingData, Training } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { Api } from "../Api.js"
import type { ApiErrors } from "../shared/ApiErrors.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

export const TrainingHttpLive: Layer.Layer<
  HttpApiGroup.Service<"support-engine", "training">,
  never,
  Training | Authentication | ApiErrors
> = HttpApiBuilder.group(Api, "training", (handlers) =>
  Effect.gen(function*() {
    const training = yield* Training
    return handlers
      .handle("create", ({ payload }) => training.create(payload).pipe(withETag))
      .handle("processUrls", ({ payload }) => Effect.map(training.processUrls(payload), (data) => ({ data })))
      .handle("urlExists", ({ query }) => training.urlExists(query))
      .handle("list", ({ query }) => Effect.flatMap(training.list(new ListTrainingData(query)), toList))
      .handle("get", ({ params }) => training.get(params.id).pipe(withETag))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          training.update(params.id, payload, options)).pipe(withETag))
      .handle("delete", ({ params }) =>
        Effect.flatMap(writeOptions, (options) => training.delete(params.id, options)))
      .handle("resync", ({ params }) => training.resync(params.id))
  }))
