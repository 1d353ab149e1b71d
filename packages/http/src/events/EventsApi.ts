/** `GET /events`: the workspace's event log for polling clients. */
import { Event, ListEvents } from "@support-engine/core"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../shared/Authentication.js"
import { NotFoundResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"

export class EventsApi extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("list", "/events", {
      query: listQuery({ event: ListEvents.fields.event, after: ListEvents.fields.after }),
      success: ListEnvelope(Event, "EventList"),
      // `after` naming an event that is not in the workspace
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "List events")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Events")
  .annotate(
    OpenApi.Description,
    "The events webhooks deliver, newest first; with `after` (an event id) only later events, oldest first."
  )
{}
