/**
 * What every request goes through around the router, in this order: its id (RequestIds.ts), the boundary below,
 * the rate limit (RateLimits.ts), the JSON body rules (JsonBody.ts), idempotency keys (IdempotencyKeys.ts), and
 * the answer to a request no route matches, 404/405 (RouteFallback.ts). The boundary turns every other outcome the
 * router would not answer as the contract says into a response: JSON body failures their status, the failures of
 * the steps above the bodies of their schemas, and defects a bare 500 that is logged with the request id.
 * HttpApi renders the endpoints' own errors (ApiErrors.ts logs those that answer 5xx).
 */
import {
  type Idempotency,
  IdempotencyKeyInUse,
  IdempotencyKeyReused,
  type IdGenerator,
  PersistenceError,
  type Tokens,
  ValidationError
} from "@support-engine/core"
import { Cause, Effect, Layer, Result } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, type HttpServerResponse } from "effect/http"
import {
  HttpFailure,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  PersistenceErrorResponse,
  renderError,
  renderHttpFailure,
  ValidationErrorResponse
} from "./ErrorResponses.js"
import { IdempotencyKeys } from "./IdempotencyKeys.js"
import { JsonBody } from "./JsonBody.js"
import { RateLimited, RateLimitedResponse, RateLimits } from "./RateLimits.js"
import { RequestIds } from "./RequestIds.js"
import { isServerFailure, logServerFailure } from "./RequestLog.js"
import { RouteFallback } from "./RouteFallback.js"

/** The failures of the steps before the router (ApiErrors.ts declares them). */
type StepFailure = RateLimited | ValidationError | IdempotencyKeyReused | IdempotencyKeyInUse | PersistenceError

const isStepFailure = (error: unknown): error is StepFailure =>
  error instanceof RateLimited || error instanceof ValidationError || error instanceof IdempotencyKeyReused ||
  error instanceof IdempotencyKeyInUse || error instanceof PersistenceError

/** A failure of the steps before the router, as the body of its schema. */
const renderStepFailure = (error: StepFailure): HttpServerResponse.HttpServerResponse => {
  if (error instanceof RateLimited) return renderError(RateLimitedResponse, error, RateLimited.status)
  if (error instanceof ValidationError) return renderError(ValidationErrorResponse, error, ValidationError.status)
  if (error instanceof IdempotencyKeyReused) {
    return renderError(IdempotencyKeyReusedResponse, error, IdempotencyKeyReused.status)
  }
  if (error instanceof IdempotencyKeyInUse) {
    return renderError(IdempotencyKeyInUseResponse, error, IdempotencyKeyInUse.status)
  }
  return renderError(PersistenceErrorResponse, error, PersistenceError.status)
}

/** `app` with the failures of the steps before the router answered; those that answer 5xx logged first. */
const answeringStepFailures = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E | StepFailure, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.catchIf(app, isStepFailure, (error) => {
    const response = renderStepFailure(error)
    if (!isServerFailure(error)) return Effect.succeed(response)
    return Effect.flatMap(
      HttpServerRequest.HttpServerRequest,
      (request) => Effect.as(logServerFailure("Request failed", Cause.fail(error), request.method, error), response)
    )
  })

const isRouteNotFound = (error: unknown): error is HttpServerError.HttpServerError =>
  HttpServerError.isHttpServerError(error) && error.reason._tag === "RouteNotFound"

/**
 * The router's answer to `request`, 404 or 405 when no route matches it. Answered at once, next to the router: the
 * router's failure holds the request, which nothing after must compare or hash (Effect hashes the failures it
 * combines, and a Node request cannot be hashed while its body is unread).
 */
const answeringUnmatched = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  request: HttpServerRequest.HttpServerRequest,
  fallback: RouteFallback["Service"]
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.catch(app, (error) => isRouteNotFound(error) ? Effect.succeed(fallback.respond(request)) : Effect.fail(error))

/**
 * The boundary of the whole app: every outcome becomes a response, but an interruption (the client went away). The
 * steps inside answer every typed failure they know of, and HttpApi every error an endpoint declares (it turns the
 * others into defects): one left here is a bug, answered as a defect is.
 */
const boundary = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.catchCause(app, (cause) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
      // A failure of the JSON body rules (JsonBody.ts): 400, 413 or 415.
      const defect = Cause.findDefect(cause)
      if (Result.isSuccess(defect) && defect.success instanceof HttpFailure) {
        return Effect.succeed(renderHttpFailure(defect.success))
      }
      const message = Result.isSuccess(Cause.findError(cause)) ? "Unhandled failure" : "Unhandled defect"
      return Effect.as(logServerFailure(message, cause, request.method), renderHttpFailure(HttpFailure.internal))
    }))

/** Every request, around the router: see the module comment. */
export const RequestMiddlewareLive: Layer.Layer<
  never,
  never,
  IdGenerator | Idempotency | Tokens | HttpRouter.HttpRouter
> = HttpRouter.middleware(
  Effect.gen(function*() {
    const ids = yield* RequestIds
    const body = yield* JsonBody
    const fallback = yield* RouteFallback
    const keys = yield* IdempotencyKeys
    const limits = yield* RateLimits
    return (app) =>
      ids.around((request, facts, now) =>
        boundary(
          answeringStepFailures(
            limits.around(
              request,
              now,
              facts.headers,
              body.around(request, keys.around(request, answeringUnmatched(app, request, fallback)))
            )
          )
        )
      )
  }),
  { global: true }
).pipe(
  Layer.provide(
    Layer.mergeAll(RequestIds.layer, JsonBody.layer, RouteFallback.layer, IdempotencyKeys.layer, RateLimits.layer)
  )
)
