/** Handler of `GET /events`. */
import { Events, ListEvents } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { Api } from "../Api.js"
import type { ApiErrors } from "../shared/ApiErrors.js"
import type { Authentication } from "../shared/Authentication.js"
import { toList } from "../shared/Lists.js"

export const EventsHttpLive: Layer.Layer<
  HttpApiGroup.Service<"support-engine", "events">,
  never,
  Events | Authentication | ApiErrors
> = HttpApiBuilder.group(Api, "events", (handlers) =>
  Effect.gen(function*() {
    const events = yield* Events
    return handlers.handle("list", ({ query }) => Effect.flatMap(events.list(new ListEvents(query)), toList))
  }))
