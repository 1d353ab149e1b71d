/**
 * What every request goes through around the router, in this order: its id (RequestIds.ts), the boundary below,
 * the rate limit (RateLimits.ts), the JSON body rules (JsonBody.ts), idempotency keys (IdempotencyKeys.ts). The
 * boundary turns every outcome HttpApi would not render into a response:
 * HttpApi's decode failures become D13 validation errors, unmatched routes 404/405 (RouteFallback.ts), D7
 * failures their status, and defects a bare 500 that is logged with the request id (D12). Core errors pass
 * through untouched: HttpApi renders them with their schemas from ErrorResponses.ts; those that answer 5xx (a
 * typed database failure) are logged here first, once, with their cause, as a defect is.
 */
import { HttpApiBuilder, HttpApiError, type HttpApp, HttpServerError, HttpServerRequest } from "@effect/platform"
import {
  type Idempotency,
  type IdempotencyKeyInUse,
  type IdempotencyKeyReused,
  type IdGenerator,
  type PersistenceError,
  type Tokens,
  ValidationError
} from "@support-engine/core"
import { Cause, Effect, FiberRef, Layer, Option, Predicate } from "effect"
import { Api } from "../Api.js"
import { fieldErrorsFromIssues, HttpFailure, renderHttpFailure } from "./ErrorResponses.js"
import { IdempotencyKeys } from "./IdempotencyKeys.js"
import { JsonBody } from "./JsonBody.js"
import { type RateLimited, RateLimits } from "./RateLimits.js"
import { RequestIds } from "./RequestIds.js"
import { currentRequestFacts } from "./RequestLog.js"
import { RouteFallback } from "./RouteFallback.js"

/** The `HttpFailure` a D7 defect carries, directly or as the cause of the platform's request error. */
const httpFailureOf = (defect: unknown): HttpFailure | undefined => {
  if (defect instanceof HttpFailure) return defect
  if (Predicate.hasProperty(defect, "cause") && defect.cause instanceof HttpFailure) return defect.cause
  return undefined
}

/** An expected failure that answers 5xx (core's errors state their status): the server's fault, to be logged. */
const isServerFailure = (error: unknown): boolean =>
  Predicate.hasProperty(error, "status") && typeof error.status === "number" && error.status >= 500

/**
 * An error line for a 5xx, with the route template (never the path a client sent, which may carry data) and, for a
 * typed failure, the reason its body hides from the client (a `PersistenceError`'s database message).
 */
const logServerFailure = (message: string, cause: Cause.Cause<unknown>, method: string, failure?: unknown) =>
  Effect.flatMap(FiberRef.get(currentRequestFacts), (facts) =>
    Effect.logError(message, cause).pipe(
      Effect.annotateLogs({
        method,
        route: Option.match(facts, { onNone: () => null, onSome: (f) => f.route }),
        ...(Predicate.hasProperty(failure, "reason") ? { reason: String(failure.reason) } : {})
      })
    ))

/** The boundary of the whole app: every outcome becomes a response or goes on to HttpApi's encoder. */
const boundary = <E, R>(
  app: HttpApp.Default<E, R>,
  fallback: RouteFallback
): HttpApp.Default<ValidationError | E, R> =>
  Effect.catchAllCause(
    app,
    (cause) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request): HttpApp.Default<ValidationError | E> => {
        // Typed `E` (the keys' errors), the cause also carries the router's and HttpApi's own failures.
        const widened: Cause.Cause<unknown> = cause
        const failure = Cause.failureOption(widened)
        if (Option.isSome(failure)) {
          const error = failure.value
          if (error instanceof HttpApiError.HttpApiDecodeError) {
            return Effect.fail(new ValidationError({ errors: fieldErrorsFromIssues(error.issues) }))
          }
          if (error instanceof HttpServerError.RouteNotFound) return Effect.succeed(fallback.respond(request))
          if (error instanceof HttpFailure) return Effect.succeed(renderHttpFailure(error))
          if (isServerFailure(error)) {
            return Effect.zipRight(
              logServerFailure("Request failed", cause, request.method, error),
              Effect.failCause(cause)
            )
          }
          return Effect.failCause(cause)
        }
        if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
        const d7 = Option.firstSomeOf(
          Array.from(Cause.defects(cause), (defect) => Option.fromNullable(httpFailureOf(defect)))
        )
        if (Option.isSome(d7)) return Effect.succeed(renderHttpFailure(d7.value))
        return Effect.as(
          logServerFailure("Unhandled defect", cause, request.method),
          renderHttpFailure(HttpFailure.internal)
        )
      })
  )

/** Every request, around the router: see the module comment. */
export const RequestMiddlewareLive: Layer.Layer<never, never, IdGenerator | Idempotency | Tokens> = HttpApiBuilder
  .middleware(
    Api,
    Effect.gen(function*() {
      const ids = yield* RequestIds
      const body = yield* JsonBody
      const fallback = yield* RouteFallback
      const keys = yield* IdempotencyKeys
      const limits = yield* RateLimits
      const middleware: HttpApiBuilder.MiddlewareFn<
        ValidationError | IdempotencyKeyInUse | IdempotencyKeyReused | PersistenceError | RateLimited
      > = (app) =>
        ids.around((request, facts, now) =>
          boundary(
            limits.around(request, now, facts.headers, body.around(request, keys.around(request, app))),
            fallback
          )
        )
      return middleware
    })
  ).pipe(
    Layer.provide(
      Layer.mergeAll(
        RequestIds.Default,
        JsonBody.Default,
        RouteFallback.Default,
        IdempotencyKeys.Default,
        RateLimits.Default
      )
    )
  )
