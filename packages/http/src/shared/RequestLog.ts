/**
 * The request log (issue 16, docs/configuration.md "Logs"): one line per request at info, through Effect's
 * `Logger`, with the method, the route template (`/v1/companies/:id`, never the path a client sent, which carries
 * ids and arbitrary text), the status, the duration, the request id and the workspace of the token. Never a token,
 * a header value, a query or a body.
 */
import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Context, Effect, Option } from "effect"

/** What only the matched route knows and the log line needs: filled in by Authentication, read after the answer. */
export interface RequestFacts {
  route: string | null
  workspaceId: string | null
}

/** The facts of the current request, provided around the router by `RequestIds`. */
export class CurrentRequestFacts extends Context.Tag("@support-engine/http/RequestFacts")<
  CurrentRequestFacts,
  RequestFacts
>() {}

/** Routes served without authentication, whose path is their template. */
const PUBLIC_ROUTES: ReadonlySet<string> = new Set(["/health", "/openapi.json", "/docs"])

/**
 * Records the matched route's template, from inside a route. A request outside the request middleware (no facts
 * provided) records nothing.
 */
export const recordRoute: Effect.Effect<void> = Effect.flatMap(Effect.context<never>(), (context) => {
  const facts = Context.getOption(context, CurrentRequestFacts)
  const route = Context.getOption(context, HttpRouter.RouteContext)
  if (Option.isSome(facts) && Option.isSome(route)) facts.value.route = route.value.route.path
  return Effect.void
})

/** Records the workspace of the request's token. */
export const recordWorkspace = (workspaceId: string): Effect.Effect<void> =>
  Effect.flatMap(Effect.serviceOption(CurrentRequestFacts), (facts) => {
    if (Option.isSome(facts)) facts.value.workspaceId = workspaceId
    return Effect.void
  })

/** The route a log line names: the template recorded by the route, a public route's path, or null (no route). */
const routeOf = (request: HttpServerRequest.HttpServerRequest, facts: RequestFacts): string | null => {
  if (facts.route !== null) return facts.route
  const query = request.url.indexOf("?")
  const path = query === -1 ? request.url : request.url.slice(0, query)
  return PUBLIC_ROUTES.has(path) ? path : null
}

/** The line of one answered request, at info. */
export const logRequest = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  facts: RequestFacts,
  startedNanos: bigint,
  endedNanos: bigint
): Effect.Effect<void> =>
  Effect.logInfo("request").pipe(
    Effect.annotateLogs({
      method: request.method,
      route: routeOf(request, facts),
      status: response.status,
      duration_ms: Number((endedNanos - startedNanos) / 1000n) / 1000,
      request_id: requestId,
      workspace_id: facts.workspaceId
    })
  )
