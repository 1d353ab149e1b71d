/** Handlers of the message endpoints: translate and call `Messages`. */
import { ListMessages, Messages } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { Api } from "../Api.js"
import type { ApiErrors } from "../shared/ApiErrors.js"
import type { Authentication } from "../shared/Authentication.js"
import { toList } from "../shared/Lists.js"

export const MessagesHttpLive: Layer.Layer<
  HttpApiGroup.Service<"support-engine", "messages">,
  never,
  Messages | Authentication | ApiErrors
> = HttpApiBuilder.group(Api, "messages", (handlers) =>
  Effect.gen(function*() {
    const messages = yield* Messages
    return handlers
      .handle("create", ({ params, payload }) => messages.create(params.id, payload))
      .handle("list", ({ query }) => Effect.flatMap(messages.list(new ListMessages(query)), toList))
      .handle("delete", ({ params }) => messages.delete(params.id))
  }))
