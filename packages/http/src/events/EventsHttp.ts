/** Handler of `GET /events` (D45). */
import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { Events, ListEvents } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { Api } from "../Api.js"
import type { Authentication } from "../shared/Authentication.js"
import { toList } from "../shared/Lists.js"

export const EventsHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"support-engine", "events">,
  never,
  Events | Authentication
> = HttpApiBuilder.group(Api, "events", (handlers) =>
  Effect.gen(function*() {
    const events = yield* Events
    return handlers.handle("list", ({ urlParams }) => Effect.flatMap(events.list(new ListEvents(urlParams)), toList))
  }))
