/**
 * The errors every endpoint can answer besides its own, as one endpoint middleware on the whole API (Api.ts), so
 * the OpenAPI document and the typed client know them: 422 validation failures, 500 storage failures, the
 * `Idempotency-Key` errors and 429. Around each endpoint it turns HttpApi's request decode failures into the
 * validation 422 (the in-process decoders' field errors, core's `fieldErrors`), and logs a typed failure that
 * answers 5xx, once, with its cause, before HttpApi renders it. The key and rate-limit errors arise before routing
 * (RequestMiddleware.ts), which renders them with the same schemas.
 */
import { fieldErrors, ValidationError } from "@support-engine/core"
import { Cause, Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiError, HttpApiMiddleware } from "effect/http-api"
import type { unhandled } from "effect/Types"
import {
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  PersistenceErrorResponse,
  ValidationErrorResponse
} from "./ErrorResponses.js"
import { RateLimitedResponse } from "./RateLimits.js"
import { isServerFailure, logServerFailure } from "./RequestLog.js"

export class ApiErrors extends HttpApiMiddleware.Service<ApiErrors>()("@support-engine/http/ApiErrors", {
  error: [
    ValidationErrorResponse,
    PersistenceErrorResponse,
    IdempotencyKeyReusedResponse,
    IdempotencyKeyInUseResponse,
    RateLimitedResponse
  ]
}) {}

/** The request's parts a client sent; a failure to encode the answer (`Body`, `ResponseHeaders`) is a bug. */
const REQUEST_PARTS: ReadonlySet<string> = new Set(["Params", "Query", "Headers", "Payload"])

export const ApiErrorsLive: Layer.Layer<ApiErrors> = Layer.succeed(
  ApiErrors,
  (httpEffect) =>
    Effect.catch(
      httpEffect,
      (error): Effect.Effect<never, unhandled | ValidationError, HttpServerRequest.HttpServerRequest> => {
        if (HttpApiError.HttpApiSchemaError.is(error)) {
          return REQUEST_PARTS.has(error.kind)
            ? Effect.fail(new ValidationError({ errors: fieldErrors(error.cause) }))
            : Effect.die(error)
        }
        if (!isServerFailure(error)) return Effect.fail(error)
        return Effect.andThen(
          Effect.flatMap(
            HttpServerRequest.HttpServerRequest,
            (request) => logServerFailure("Request failed", Cause.fail(error), request.method, error)
          ),
          Effect.fail(error)
        )
      }
    )
)
