/** Handlers of `/conversations` (D26-D28): translate and call `Conversations`. */
import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { Conversations, ListConversations } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { Api } from "../Api.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

export const ConversationsHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"support-engine", "conversations">,
  never,
  Conversations | Authentication
> = HttpApiBuilder.group(Api, "conversations", (handlers) =>
  Effect.gen(function*() {
    const conversations = yield* Conversations
    return handlers
      .handle("create", ({ payload }) => conversations.create(payload).pipe(withETag))
      .handle("list", ({ urlParams }) => Effect.flatMap(conversations.list(new ListConversations(urlParams)), toList))
      .handle("get", ({ path }) => conversations.get(path.id).pipe(withETag))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          conversations.update(path.id, payload, options)).pipe(withETag))
      .handle("delete", ({ path }) =>
        Effect.flatMap(writeOptions, (options) => conversations.delete(path.id, options)))
  }))
