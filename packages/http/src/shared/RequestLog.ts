/**
 * The request log (issue 16, docs/configuration.md "Logs"): one line per request at info, through Effect's
 * `Logger`, with the method, the route template (`/v1/companies/:id`, never the path a client sent, which carries
 * ids and arbitrary text), the status, the duration, the request id and the workspace of the token. Never a token,
 * a header value, a query or a body.
 */
import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Effect, FiberRef, HashMap, Option } from "effect"
import { globalValue } from "effect/GlobalValue"

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

/**
 * The facts of the request the current fiber serves; none outside the request middleware. A fiber ref that
 * `RequestIds` sets once on the request's fiber, as the platform sets its pre-response handlers: every request
 * runs on a fiber of its own that ends with the answer, so nothing needs restoring. Providing a service instead
 * wrapped the whole request in an acquire/release (about a dozen runtime steps and a copy of the context's
 * services, on every request: docs/performance.md).
 */
export const currentRequestFacts: FiberRef.FiberRef<Option.Option<RequestFacts>> = globalValue(
  Symbol.for("@support-engine/http/RequestFacts"),
  () => FiberRef.unsafeMake<Option.Option<RequestFacts>>(Option.none())
)

/** Writes into the current request's facts; a fiber that serves no request writes nothing. */
export const updateFacts = (write: (facts: RequestFacts) => void): Effect.Effect<void> =>
  Effect.map(FiberRef.get(currentRequestFacts), (facts) => {
    if (Option.isSome(facts)) write(facts.value)
  })

/** Routes served without authentication, whose path is their template. */
const PUBLIC_ROUTES: ReadonlySet<string> = new Set(["/health", "/openapi.json", "/docs"])

/**
 * Records the matched route's template, from inside a route. A request outside the request middleware (no facts)
 * records nothing.
 */
export const recordRoute: Effect.Effect<void> = Effect.flatMap(
  Effect.serviceOption(HttpRouter.RouteContext),
  (route) =>
    updateFacts((facts) => {
      if (Option.isSome(route)) facts.route = route.value.route.path
    })
)

/** Records the workspace of the request's token. */
export const recordWorkspace = (workspaceId: string): Effect.Effect<void> =>
  updateFacts((facts) => {
    facts.workspaceId = workspaceId
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
 * them, but set in one mutation of the request fiber's annotation map (which already holds `request_id`): six
 * persistent inserts cost a third of the line, and `annotateLogs` wraps the line in an acquire/release
 * (docs/performance.md). Nothing is restored: the line is the last thing the request's fiber logs.
 */
export const logRequest = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  facts: RequestFacts,
  startedNanos: bigint,
  endedNanos: bigint
): Effect.Effect<void> =>
  Effect.zipRight(
    FiberRef.update(FiberRef.currentLogAnnotations, (annotations) =>
      HashMap.mutate(annotations, (fields) => {
        HashMap.set(fields, "method", request.method)
        HashMap.set(fields, "route", routeOf(request, facts))
        HashMap.set(fields, "status", response.status)
        HashMap.set(fields, "duration_ms", Number((endedNanos - startedNanos) / 1000n) / 1000)
        HashMap.set(fields, "workspace_id", facts.workspaceId)
      })),
    Effect.logInfo("request")
  )
