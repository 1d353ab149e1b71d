/**
 * The request log (docs/configuration.md "Logs"): one line per request at info, through Effect's
 * `Logger`, with the method, the route template (`/v1/companies/:id`, never the path a client sent, which carries
 * ids and arbitrary text), the status, the duration, the request id and the workspace of the token. Never a token,
 * a header value, a query or a body. It replaces Effect's own request logger (switched off where the API is served,
 * Server.ts), which wraps every request in a log span and an exit handler and writes other fields.
 */
import { type Cause, Context, Effect, type Fiber, LogLevel, Predicate, References } from "effect"
import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "effect/http"

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
 * The facts of the request the current fiber serves; none outside the request middleware. `RequestIds` puts them in
 * the request fiber's context once, beside its log annotation, as the router puts the route's: the server restores
 * the fiber's context when the request ends, so nothing is scoped per request.
 */
export const CurrentRequestFacts = Context.Reference<RequestFacts | undefined>("@support-engine/http/RequestFacts", {
  defaultValue: () => undefined
})

/** Writes into the current request's facts; a fiber that serves no request writes nothing. */
export const updateFacts = (write: (facts: RequestFacts) => void): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    const facts = fiber.getRef(CurrentRequestFacts)
    if (facts !== undefined) write(facts)
    return Effect.void
  })

/** Routes served without authentication, whose path is their template. */
const PUBLIC_ROUTES: ReadonlySet<string> = new Set(["/health", "/ready", "/openapi.json", "/docs"])

/**
 * Records the matched route's template, from inside a route. A request outside the request middleware (no facts)
 * records nothing.
 */
export const recordRoute: Effect.Effect<void> = Effect.withFiber((fiber) => {
  recordRouteOf(fiber)
  return Effect.void
})

/**
 * `recordRoute` inside a step that already has the fiber, as plain code: records the route template and returns
 * the request's facts (none outside the request middleware), for the step to write more into.
 */
export const recordRouteOf = (fiber: Fiber.Fiber<unknown, unknown>): RequestFacts | undefined => {
  const facts = fiber.getRef(CurrentRequestFacts)
  const route = Context.getOrUndefined(fiber.context, HttpRouter.RouteContext)
  if (facts !== undefined && route !== undefined) facts.route = route.route.path
  return facts
}

/** Records the workspace of the request's token. */
export const recordWorkspace = (workspaceId: string): Effect.Effect<void> =>
  updateFacts((facts) => {
    facts.workspaceId = workspaceId
  })

/**
 * The route a log line and the metrics name: the template recorded by the route, a public route's path, or null
 * (no route).
 */
export const routeOf = (request: HttpServerRequest.HttpServerRequest, facts: RequestFacts): string | null => {
  if (facts.route !== null) return facts.route
  const query = request.url.indexOf("?")
  const path = query === -1 ? request.url : request.url.slice(0, query)
  return PUBLIC_ROUTES.has(path) ? path : null
}

/**
 * The line of one answered request, at info. Its fields are log annotations, as `Effect.annotateLogs` would add
 * them. They go into `annotations`, the request's own annotations (a fresh object the request's id put in its
 * fiber's context, RequestIds.ts) when the fiber still logs with them: the line is the last thing the request's
 * fiber logs, and every line before it was written as it was logged. Adding them to the fiber's context instead
 * would copy the context when it is already several additions deep, as a request's is by now: every service of
 * the server, on every request.
 */
export const logRequest = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  facts: RequestFacts,
  annotations: Record<string, unknown>,
  route: string | null,
  startedNanos: bigint,
  endedNanos: bigint
): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    if (LogLevel.isGreaterThan(fiber.getRef(References.MinimumLogLevel), "Info")) return Effect.void
    const current = fiber.getRef(References.CurrentLogAnnotations)
    const line = current === annotations ? annotations : { ...current }
    line.method = request.method
    line.route = route
    line.status = response.status
    line.duration_ms = Number((endedNanos - startedNanos) / 1000n) / 1000
    line.workspace_id = facts.workspaceId
    if (line !== annotations) fiber.setContext(Context.add(fiber.context, References.CurrentLogAnnotations, line))
    return Effect.logInfo("request")
  })

/** An expected failure that answers 5xx (core's errors state their status): the server's fault, to be logged. */
export const isServerFailure = (error: unknown): boolean =>
  Predicate.hasProperty(error, "status") && typeof error.status === "number" && error.status >= 500

/**
 * An error line for a 5xx, with the route template (never the path a client sent, which may carry data) and, for a
 * typed failure, the reason its body hides from the client (a `PersistenceError`'s database message).
 */
export const logServerFailure = (
  message: string,
  cause: Cause.Cause<unknown>,
  method: string,
  failure?: unknown
): Effect.Effect<void> =>
  Effect.flatMap(CurrentRequestFacts, (facts) =>
    Effect.logError(message, cause).pipe(
      Effect.annotateLogs({
        method,
        route: facts?.route ?? null,
        ...(Predicate.hasProperty(failure, "reason") ? { reason: String(failure.reason) } : {})
      })
    ))
