/**
 * The request log (issue 16, docs/configuration.md "Logs"): one line per request at info, through Effect's
 * `Logger`, with the method, the route template (`/v1/companies/:id`, never the path a client sent, which carries
 * ids and arbitrary text), the status, the duration, the request id and the workspace of the token. Never a token,
 * a header value, a query or a body.
 */
import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Context, Effect, FiberRef, HashMap, Option } from "effect"

/**
 * What the request's answer needs from the steps that ran it, written by them and read once, when the answer is
 * ready (RequestIds.ts): the route and workspace for the log line (Authentication), the headers every answer to
 * the request carries (its id, the rate-limit headers), and its entity tag (ETags.ts). One record read by one
 * pre-response step, rather than a step of each feature: most requests are small, and each step is work on all.
 */
export interface RequestFacts {
  route: string | null
  workspaceId: string | null
  /** Headers of the answer, whatever it is. */
  readonly headers: Record<string, string>
  /** The answer's `ETag`: none, the hash of its body (`true`; the answer is the resource), or a given tag. */
  etag: true | string | null
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

/**
 * The line of one answered request, at info. Its fields are log annotations, as `Effect.annotateLogs` would add
 * them, but set in one mutation of the annotation map: six persistent inserts cost a third of the line
 * (docs/performance.md), and every request writes one.
 */
export const logRequest = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  facts: RequestFacts,
  startedNanos: bigint,
  endedNanos: bigint
): Effect.Effect<void> =>
  Effect.locallyWith(
    Effect.logInfo("request"),
    FiberRef.currentLogAnnotations,
    (annotations) =>
      HashMap.mutate(annotations, (fields) => {
        HashMap.set(fields, "method", request.method)
        HashMap.set(fields, "route", routeOf(request, facts))
        HashMap.set(fields, "status", response.status)
        HashMap.set(fields, "duration_ms", Number((endedNanos - startedNanos) / 1000n) / 1000)
        HashMap.set(fields, "request_id", requestId)
        HashMap.set(fields, "workspace_id", facts.workspaceId)
      })
  )
