/** Handlers of the message endpoints (D19, D29): translate and call `Messages`. */
import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { ListMessages, Messages } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { Api } from "../Api.js"
import type { Authentication } from "../shared/Authentication.js"
import { toList } from "../shared/Lists.js"

export const MessagesHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"support-engine", "messages">,
  never,
  Messages | Authentication
> = HttpApiBuilder.group(Api, "messages", (handlers) =>
  Effect.gen(function*() {
    const messages = yield* Messages
    return handlers
      .handle("create", ({ path, payload }) => messages.create(path.id, payload))
      .handle("list", ({ urlParams }) => Effect.flatMap(messages.list(new ListMessages(urlParams)), toList))
      .handle("delete", ({ path }) => messages.delete(path.id))
  }))
