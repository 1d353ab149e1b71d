/** Handlers of `/conversations`: translate and call `Conversations` and `Copilot`. */
import { Conversations, Copilot, ListConversations } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { Api } from "../Api.js"
import type { ApiErrors } from "../shared/ApiErrors.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

export const ConversationsHttpLive: Layer.Layer<
  HttpApiGroup.Service<"support-engine", "conversations">,
  never,
  Conversations | Copilot | Authentication | ApiErrors
> = HttpApiBuilder.group(Api, "conversations", (handlers) =>
  Effect.gen(function*() {
    const conversations = yield* Conversations
    const copilot = yield* Copilot
    return handlers
      .handle("create", ({ payload }) => conversations.create(payload).pipe(withETag))
      .handle("list", ({ query }) => Effect.flatMap(conversations.list(new ListConversations(query)), toList))
      .handle("get", ({ params }) => conversations.get(params.id).pipe(withETag))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          conversations.update(params.id, payload, options)).pipe(withETag))
      .handle("delete", ({ params }) =>
        Effect.flatMap(writeOptions, (options) =>
          conversations.delete(params.id, options)))
      .handle("suggestReply", ({ params, payload }) =>
        copilot.suggestReply(params.id, payload))
      .handle("summarize", ({ params, payload }) =>
        copilot.summarize(params.id, payload))
  }))
