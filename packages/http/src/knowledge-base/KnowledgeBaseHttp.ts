/** Handlers of `/kb-articles`: translate and call `KnowledgeBase`. */
import { KnowledgeBase, ListArticles, ListRevisions } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { Api } from "../Api.js"
import type { ApiErrors } from "../shared/ApiErrors.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

export const KnowledgeBaseHttpLive: Layer.Layer<
  HttpApiGroup.Service<"support-engine", "kb">,
  never,
  KnowledgeBase | Authentication | ApiErrors
> = HttpApiBuilder.group(Api, "kb", (handlers) =>
  Effect.gen(function*() {
    const kb = yield* KnowledgeBase
    return handlers
      .handle("create", ({ payload }) => kb.create(payload).pipe(withETag))
      .handle("list", ({ query }) => Effect.flatMap(kb.list(new ListArticles(query)), toList))
      .handle("get", ({ params }) => kb.get(params.id).pipe(withETag))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          kb.update(params.id, payload, options)).pipe(withETag))
      .handle("putTranslation", ({ params, payload }) =>
        kb.putTranslation(params.id, params.locale, payload))
      .handle(
        "listRevisions",
        ({ params, query }) => Effect.flatMap(kb.listRevisions(params.id, new ListRevisions(query)), toList)
      )
      .handle("restore", ({ params }) => kb.restore(params.id, params.revisionId))
  }))
