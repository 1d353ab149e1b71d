/**
 * Every error response of the API, derived from the core error classes: each class states its status
 * and code (core's Errors.ts), and the schemas here add only the wire body. The server renders with them, OpenAPI
 * documents them, and the typed client decodes a body back to the class its code names: the status and code
 * choose the class, the body's message becomes its message; no message text is parsed. Failures that only HTTP
 * has (the JSON body rules, unknown routes, defects) are `HttpFailure`s, rendered by `renderHttpFailure`.
 */
import {
  BusinessStateError,
  CreationFailed,
  FieldErrors,
  Forbidden,
  IdempotencyKeyInUse,
  IdempotencyKeyReused,
  InsufficientAbility,
  INTERNAL_ERROR_MESSAGE,
  InvalidAgent,
  InvalidAssignee,
  InvalidAssigneeType,
  InvalidSender,
  InvalidType,
  NotFound,
  NoUrlsProvided,
  PersistenceError,
  PreconditionFailed,
  ProcessingFailed,
  Unauthenticated,
  UrlDiscoveryRequired,
  ValidationError
} from "@support-engine/core"
import { Schema, SchemaTransformation } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiSchema } from "effect/http-api"

/** A core error class whose body is the standard envelope: made from a message, with its status and code. */
export interface EnvelopeError<A extends { readonly message: string }, C extends string> extends Schema.Top {
  new(props: { readonly message: string }): A
  readonly "Type": A
  readonly identifier: string
  readonly status: number
  readonly code: C
}

/**
 * The wire form of a core error class: `body` with the class's status (for the server and the OpenAPI document),
 * decoded back to the class (for the typed client). The component name and description go on the body, the
 * encoded side the OpenAPI document shows; the description again on the whole, where the response reads it.
 */
const errorBody = <S extends Schema.Top & { readonly status: number }, B extends Schema.Top>(
  target: S,
  body: B,
  options: {
    readonly identifier: string
    readonly description: string
    readonly decode: (body: B["Type"]) => S["Type"]
    readonly encode: (error: S["Type"]) => B["Type"]
  }
) =>
  body.annotate({ identifier: options.identifier, description: options.description }).pipe(
    Schema.decodeTo(
      Schema.toType(target),
      SchemaTransformation.transform({ decode: options.decode, encode: options.encode })
    ),
    (schema) => schema.annotate({ description: options.description }),
    HttpApiSchema.status(target.status)
  )

/**
 * The class's errors as `{"error": message, "code": CODE, "errors": null}` with its status, decoded back to the
 * class when the code is its own. `description` says when it happens, for the OpenAPI document.
 */
export const envelope = <A extends { readonly message: string }, C extends string>(
  target: EnvelopeError<A, C>,
  description: string
) =>
  errorBody(target, Schema.Struct({ error: Schema.String, code: Schema.Literal(target.code), errors: Schema.Null }), {
    identifier: target.identifier,
    description,
    decode: (body) => new target({ message: body.error }),
    encode: (error) => ({ error: error.message, code: target.code, errors: null })
  })

/** 401 UNAUTHENTICATED. */
export const UnauthenticatedResponse = envelope(
  Unauthenticated,
  "Missing, malformed, unknown, expired or revoked token"
)

/** 403 INSUFFICIENT_TOKEN_ABILITY: the message names the missing ability. */
export const InsufficientAbilityResponse = envelope(
  InsufficientAbility,
  "The token lacks the ability the method needs"
)

/** 403 FORBIDDEN: a business rule blocks the operation (a copilot agent cannot be updated or deleted). */
export const ForbiddenResponse = envelope(Forbidden, "Blocked by a business rule")

/** 404 RESOURCE_NOT_FOUND: missing or in another workspace, indistinguishably. */
export const NotFoundResponse = envelope(NotFound, "Not found in the token's workspace")

/** 400 INVALID_SENDER: the sender is not in the workspace, or a customer sender is not the conversation's. */
export const InvalidSenderResponse = envelope(InvalidSender, "Invalid message sender")

/** 400 INVALID_ASSIGNEE: the id names no user or agent of the workspace. */
export const InvalidAssigneeResponse = envelope(InvalidAssignee, "The assignee is no user or agent of the workspace")

/** 400 INVALID_ASSIGNEE_TYPE: the type does not match the id, or the agent may not take this conversation. */
export const InvalidAssigneeTypeResponse = envelope(
  InvalidAssigneeType,
  "The assignee type violates the conversation's channel rules"
)

/** 400 INVALID_TYPE: a training-data type the API does not know. */
export const InvalidTypeResponse = envelope(InvalidType, "Unsupported training data type")

/** 400 INVALID_AGENT: an unknown or foreign agent in `agent_ids`. */
export const InvalidAgentResponse = envelope(InvalidAgent, "An agent is missing or outside the workspace")

/** 422 URL_DISCOVERY_REQUIRED in the standard envelope: url items are created through `url/process`. */
export const UrlDiscoveryRequiredResponse = envelope(
  UrlDiscoveryRequired,
  "URL training data must go through the URL process endpoint"
)

/** 422 NO_URLS_PROVIDED in the standard envelope: no valid URL to process. */
export const NoUrlsProvidedResponse = envelope(NoUrlsProvided, "The request held no valid URL")

/** 500 PROCESSING_FAILED. */
export const ProcessingFailedResponse = envelope(ProcessingFailed, "Processing failed on the server")

/** 500 CREATION_FAILED. */
export const CreationFailedResponse = envelope(CreationFailed, "Creation failed on the server")

export { INTERNAL_ERROR_MESSAGE }

/** 412 PRECONDITION_FAILED: `If-Match` no longer matches; nothing changed. */
export const PreconditionFailedResponse = envelope(
  PreconditionFailed,
  "If-Match names a version that is no longer current; nothing was changed"
)

/** 422 IDEMPOTENCY_KEY_REUSED: the key was first sent with another request. */
export const IdempotencyKeyReusedResponse = envelope(
  IdempotencyKeyReused,
  "The Idempotency-Key was first used with a different request"
)

/** 409 IDEMPOTENCY_KEY_IN_USE: the first request with this key is still running. */
export const IdempotencyKeyInUseResponse = envelope(
  IdempotencyKeyInUse,
  "The first request with this Idempotency-Key is still running"
)

/**
 * 500 with code null: the database failed. The `reason` stays in the server's logs; a client decodes
 * the body to a `PersistenceError` with a generic reason.
 */
export const PersistenceErrorResponse = errorBody(
  PersistenceError,
  Schema.Struct({ error: Schema.String, code: Schema.Null, errors: Schema.Null }),
  {
    identifier: "InternalServerError",
    description: "Internal server error",
    decode: () =>
      new PersistenceError({ reason: `The server answered ${PersistenceError.status} ${INTERNAL_ERROR_MESSAGE}` }),
    encode: (error) => ({ error: error.message, code: null, errors: null })
  }
)

/** 422 `{"message", "errors": {field: [messages]}}` for body, query and path failures. */
export const ValidationErrorResponse = errorBody(
  ValidationError,
  Schema.Struct({ message: Schema.Literal(ValidationError.summary), errors: FieldErrors }),
  {
    identifier: "ValidationFailed",
    description: "Validation failed (field names as in the request)",
    decode: (body) => new ValidationError({ errors: body.errors }),
    encode: (error) => ({ message: ValidationError.summary, errors: error.errors })
  }
)

/** 422 `{"success": false, "message"}`: a business-state failure, not retryable until state changes. */
export const BusinessStateErrorResponse = errorBody(
  BusinessStateError,
  Schema.Struct({ success: Schema.Literal(false), message: Schema.String }),
  {
    identifier: "BusinessStateFailed",
    description: "Business-state failure",
    decode: (body) => new BusinessStateError({ message: body.message }),
    encode: (error) => ({ success: false as const, message: error.message })
  }
)

/** HttpApi's own decode errors render exactly as the in-process decoders': one implementation, in core. */
export { fieldErrorsFromIssues, MAX_MESSAGE_LENGTH } from "@support-engine/core"

/** Failures of the HTTP layer itself (body rules, routing, defects): no core class, the standard envelope. */
export class HttpFailure extends Schema.TaggedError<HttpFailure>()("HttpFailure", {
  status: Schema.Int,
  code: Schema.NullOr(Schema.String),
  message: Schema.String
}) {
  /** 415: a request body that is not `application/json`. */
  static readonly unsupportedMediaType = new HttpFailure({
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
    message: "Request bodies must be JSON (Content-Type: application/json)."
  })
  /** 400: a body that is not valid JSON in UTF-8. */
  static readonly malformedJson = new HttpFailure({
    status: 400,
    code: "MALFORMED_JSON",
    message: "The request body is not valid JSON."
  })
  /** 413: a body over the configured limit. */
  static payloadTooLarge(limit: number): HttpFailure {
    return new HttpFailure({
      status: 413,
      code: "PAYLOAD_TOO_LARGE",
      message: `The request body exceeds ${limit} bytes.`
    })
  }
  /** 404: no route has this path. */
  static readonly routeNotFound = new HttpFailure({
    status: 404,
    code: "ROUTE_NOT_FOUND",
    message: "The route could not be found."
  })
  /** 405: the path exists, the method does not. */
  static readonly methodNotAllowed = new HttpFailure({
    status: 405,
    code: "METHOD_NOT_ALLOWED",
    message: "The method is not allowed for this route."
  })
  /** 500 for a defect: the body never says more than this. */
  static readonly internal = new HttpFailure({ status: 500, code: null, message: INTERNAL_ERROR_MESSAGE })
}

/** An `HttpFailure` as its standard-envelope response. */
export const renderHttpFailure = (failure: HttpFailure): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe({ error: failure.message, code: failure.code, errors: null }, {
    status: failure.status
  })

/** A typed failure as the response its schema writes, with `status` (the one its class states). */
export const renderError = <A>(
  schema: Schema.Codec<A, unknown>,
  error: A,
  status: number
): HttpServerResponse.HttpServerResponse => HttpServerResponse.jsonUnsafe(Schema.encodeSync(schema)(error), { status })
