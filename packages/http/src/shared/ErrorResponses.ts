/**
 * Every error response of the API, in one place (D12-D15). Each core error class has a schema here that
 * encodes it to its wire body and status, and decodes that body back to the same class, so the server renders
 * with it, OpenAPI documents it and the typed client fails with the core error a caller would see in-process.
 * Failures that only HTTP has (D7 body rules, unknown routes, defects) are rendered by `renderOther`.
 */
import { HttpApiSchema, HttpServerResponse } from "@effect/platform"
import {
  Ability,
  BusinessStateError,
  CreationFailed,
  FieldErrors,
  Forbidden,
  InsufficientAbility,
  InvalidAgent,
  InvalidAssignee,
  InvalidAssigneeType,
  InvalidSender,
  InvalidType,
  NotFound,
  NoUrlsProvided,
  PersistenceError,
  ProcessingFailed,
  Unauthenticated,
  UrlDiscoveryRequired,
  ValidationError
} from "@support-engine/core"
import { ParseResult, Schema } from "effect"

/** The standard envelope (D12) with a fixed code. */
const Envelope = <const C extends string>(code: C) =>
  Schema.Struct({ error: Schema.String, code: Schema.Literal(code), errors: Schema.Null })

interface Coded {
  readonly message: string
  readonly code: string
}

/**
 * A core error class as the standard envelope: encoding takes the error's own message and code, decoding
 * rebuilds the class from the message.
 */
const envelope = <A extends Coded, I, R>(
  target: Schema.Schema<A, I, R>,
  options: {
    readonly code: A["code"]
    readonly status: number
    readonly identifier: string
    readonly description: string
    readonly fromMessage: (message: string) => A | undefined
  }
) =>
  Schema.transformOrFail(Envelope(options.code), Schema.typeSchema(target), {
    strict: true,
    decode: (body, _, ast) => {
      const error = options.fromMessage(body.error)
      return error === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, body, `not a ${options.identifier} message`))
        : ParseResult.succeed(error)
    },
    encode: (error) => ParseResult.succeed({ error: error.message, code: options.code, errors: null })
  }).annotations({
    identifier: options.identifier,
    ...HttpApiSchema.annotations({ status: options.status, description: options.description })
  })

/** 401 UNAUTHENTICATED (D12). */
export const UnauthenticatedResponse = envelope(Unauthenticated, {
  code: "UNAUTHENTICATED",
  status: 401,
  identifier: "Unauthenticated",
  description: "Missing, malformed, unknown, expired or revoked token",
  fromMessage: (message) => new Unauthenticated({ message })
})

const ABILITY_MESSAGE = /^This token lacks the (.+) ability\.$/

/** 403 INSUFFICIENT_TOKEN_ABILITY (D10, D12). */
export const InsufficientAbilityResponse = envelope(InsufficientAbility, {
  code: "INSUFFICIENT_TOKEN_ABILITY",
  status: 403,
  identifier: "InsufficientAbility",
  description: "The token lacks the ability the method needs",
  fromMessage: (message) => {
    const ability = ABILITY_MESSAGE.exec(message)?.[1]
    return Schema.is(Ability)(ability) ? new InsufficientAbility({ ability }) : undefined
  }
})

/** 403 FORBIDDEN: a business rule blocks the operation (D23). */
export const ForbiddenResponse = envelope(Forbidden, {
  code: "FORBIDDEN",
  status: 403,
  identifier: "Forbidden",
  description: "Blocked by a business rule",
  fromMessage: (message) => new Forbidden({ message })
})

const NOT_FOUND_MESSAGE = /^(.+) not found\.$/

/** 404 RESOURCE_NOT_FOUND: missing or in another workspace, indistinguishably (D11). */
export const NotFoundResponse = envelope(NotFound, {
  code: "RESOURCE_NOT_FOUND",
  status: 404,
  identifier: "NotFound",
  description: "Not found in the token's workspace",
  fromMessage: (message) => {
    const resource = NOT_FOUND_MESSAGE.exec(message)?.[1]
    return resource === undefined ? undefined : new NotFound({ resource })
  }
})

/** 400 INVALID_SENDER (D29). */
export const InvalidSenderResponse = envelope(InvalidSender, {
  code: "INVALID_SENDER",
  status: 400,
  identifier: "InvalidSender",
  description: "Invalid message sender",
  fromMessage: (message) => new InvalidSender({ message })
})

/** 400 INVALID_ASSIGNEE (D27). */
export const InvalidAssigneeResponse = envelope(InvalidAssignee, {
  code: "INVALID_ASSIGNEE",
  status: 400,
  identifier: "InvalidAssignee",
  description: "The assignee is no user or agent of the workspace",
  fromMessage: (message) => new InvalidAssignee({ message })
})

/** 400 INVALID_ASSIGNEE_TYPE (D27). */
export const InvalidAssigneeTypeResponse = envelope(InvalidAssigneeType, {
  code: "INVALID_ASSIGNEE_TYPE",
  status: 400,
  identifier: "InvalidAssigneeType",
  description: "The assignee type violates the conversation's channel rules",
  fromMessage: (message) => new InvalidAssigneeType({ message })
})

/** 400 INVALID_TYPE (D30). */
export const InvalidTypeResponse = envelope(InvalidType, {
  code: "INVALID_TYPE",
  status: 400,
  identifier: "InvalidType",
  description: "Unsupported training data type",
  fromMessage: (message) => new InvalidType({ message })
})

/** 400 INVALID_AGENT (D30). */
export const InvalidAgentResponse = envelope(InvalidAgent, {
  code: "INVALID_AGENT",
  status: 400,
  identifier: "InvalidAgent",
  description: "An agent is missing or outside the workspace",
  fromMessage: (message) => new InvalidAgent({ message })
})

/** 422 URL_DISCOVERY_REQUIRED in the standard envelope (D14, D30). */
export const UrlDiscoveryRequiredResponse = envelope(UrlDiscoveryRequired, {
  code: "URL_DISCOVERY_REQUIRED",
  status: 422,
  identifier: "UrlDiscoveryRequired",
  description: "URL training data must go through the URL process endpoint",
  fromMessage: (message) => new UrlDiscoveryRequired({ message })
})

/** 422 NO_URLS_PROVIDED in the standard envelope (D14, D30). */
export const NoUrlsProvidedResponse = envelope(NoUrlsProvided, {
  code: "NO_URLS_PROVIDED",
  status: 422,
  identifier: "NoUrlsProvided",
  description: "The request held no valid URL",
  fromMessage: (message) => new NoUrlsProvided({ message })
})

/** 500 PROCESSING_FAILED (D12). */
export const ProcessingFailedResponse = envelope(ProcessingFailed, {
  code: "PROCESSING_FAILED",
  status: 500,
  identifier: "ProcessingFailed",
  description: "Processing failed on the server",
  fromMessage: (message) => new ProcessingFailed({ message })
})

/** 500 CREATION_FAILED (D12). */
export const CreationFailedResponse = envelope(CreationFailed, {
  code: "CREATION_FAILED",
  status: 500,
  identifier: "CreationFailed",
  description: "Creation failed on the server",
  fromMessage: (message) => new CreationFailed({ message })
})

/** The fixed 500 message: no stack, SQL or internal name ever reaches a client (D12). */
export const INTERNAL_ERROR_MESSAGE = "Internal server error."

/**
 * 500 with code null (D12): the database failed. The `reason` stays in the server's logs; a client decodes
 * the body to a `PersistenceError` with a generic reason.
 */
export const PersistenceErrorResponse = Schema.transform(
  Schema.Struct({ error: Schema.String, code: Schema.Null, errors: Schema.Null }),
  Schema.typeSchema(PersistenceError),
  {
    strict: true,
    decode: () => new PersistenceError({ reason: "The server answered 500 Internal server error." }),
    encode: () => ({ error: INTERNAL_ERROR_MESSAGE, code: null, errors: null })
  }
).annotations({
  identifier: "InternalServerError",
  ...HttpApiSchema.annotations({ status: 500, description: "Internal server error" })
})

const VALIDATION_MESSAGE = "The given data was invalid." as const

/** 422 `{"message", "errors": {field: [messages]}}` for body, query and path failures (D13). */
export const ValidationErrorResponse = Schema.transform(
  Schema.Struct({ message: Schema.Literal(VALIDATION_MESSAGE), errors: FieldErrors }),
  Schema.typeSchema(ValidationError),
  {
    strict: true,
    decode: (body) => new ValidationError({ errors: body.errors }),
    encode: (error) => ({ message: VALIDATION_MESSAGE, errors: error.errors })
  }
).annotations({
  identifier: "ValidationFailed",
  ...HttpApiSchema.annotations({ status: 422, description: "Validation failed (field names as in the request)" })
})

/** 422 `{"success": false, "message"}`: a business-state failure, not retryable until state changes (D14). */
export const BusinessStateErrorResponse = Schema.transform(
  Schema.Struct({ success: Schema.Literal(false), message: Schema.String }),
  Schema.typeSchema(BusinessStateError),
  {
    strict: true,
    decode: (body) => new BusinessStateError({ message: body.message }),
    encode: (error) => ({ success: false as const, message: error.message })
  }
).annotations({
  identifier: "BusinessStateFailed",
  ...HttpApiSchema.annotations({ status: 422, description: "Business-state failure" })
})

/** HttpApi's own decode errors render exactly as the in-process decoders' (D13): one implementation, in core. */
export { fieldErrorsFromIssues, MAX_MESSAGE_LENGTH } from "@support-engine/core"

/** Failures of the HTTP layer itself (D7, D12): no core class, rendered in the standard envelope. */
export class HttpFailure extends Schema.TaggedError<HttpFailure>()("HttpFailure", {
  status: Schema.Int,
  code: Schema.NullOr(Schema.String),
  message: Schema.String
}) {
  /** 415: a request body that is not `application/json` (D7). */
  static readonly unsupportedMediaType = new HttpFailure({
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
    message: "Request bodies must be JSON (Content-Type: application/json)."
  })
  /** 400: a body that is not valid JSON in UTF-8 (D7). */
  static readonly malformedJson = new HttpFailure({
    status: 400,
    code: "MALFORMED_JSON",
    message: "The request body is not valid JSON."
  })
  /** 413: a body over the configured limit (D7). */
  static payloadTooLarge(limit: number): HttpFailure {
    return new HttpFailure({
      status: 413,
      code: "PAYLOAD_TOO_LARGE",
      message: `The request body exceeds ${limit} bytes.`
    })
  }
  /** 404: no route has this path (D12). */
  static readonly routeNotFound = new HttpFailure({
    status: 404,
    code: "ROUTE_NOT_FOUND",
    message: "The route could not be found."
  })
  /** 405: the path exists, the method does not (D12). */
  static readonly methodNotAllowed = new HttpFailure({
    status: 405,
    code: "METHOD_NOT_ALLOWED",
    message: "The method is not allowed for this route."
  })
  /** 500 for a defect (D12): the body never says more than this. */
  static readonly internal = new HttpFailure({ status: 500, code: null, message: INTERNAL_ERROR_MESSAGE })
}

/** An `HttpFailure` as its standard-envelope response. */
export const renderHttpFailure = (failure: HttpFailure): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson({ error: failure.message, code: failure.code, errors: null }, {
    status: failure.status
  })
