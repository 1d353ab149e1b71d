/** Handlers of `/kb-articles` (D32): translate and call `KnowledgeBase`. */
import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { KnowledgeBase, ListArticles, ListRevisions } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { Api } from "../Api.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

export const KnowledgeBaseHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"support-engine", "kb">,
  never,
  KnowledgeBase | Authentication
> = HttpApiBuilder.group(Api, "kb", (handlers) =>
  Effect.gen(function*() {
    const kb = yield* KnowledgeBase
    return handlers
      .handle("create", ({ payload }) => kb.create(payload).pipe(withETag))
      .handle("list", ({ urlParams }) => Effect.flatMap(kb.list(new ListArticles(urlParams)), toList))
      .handle("get", ({ path }) => kb.get(path.id).pipe(withETag))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          kb.update(path.id, payload, options)).pipe(withETag))
      .handle("putTranslation", ({ path, payload }) =>
        kb.putTranslation(path.id, path.locale, payload))
      .handle(
        "listRevisions",
        ({ path, urlParams }) => Effect.flatMap(kb.listRevisions(path.id, new ListRevisions(urlParams)), toList)
      )
      .handle("restore", ({ path }) => kb.restore(path.id, path.revisionId))
  }))
