/**
 * Every expected failure of the engine. Each class states, once, what an adapter needs to render it:
 * `status` and `code` (null where the contract has none) as static fields, which the HTTP package reads for its
 * error bodies, OpenAPI schemas and client decoding, and on every instance for in-process callers; and a
 * human-readable `message`. Plain numbers and strings: core knows no HTTP library (docs/decisions.md).
 */
import { Effect, Option, Schema } from "effect"

/**
 * A `message` field with a default: optional when the error is made (`new Unauthenticated()`) and when it is
 * decoded (a client reading a body without one), always present on the instance.
 */
const messageOr = (message: string) =>
  Schema.String.pipe(
    Schema.withConstructorDefault(Effect.succeed(message)),
    Schema.withDecodingDefaultType(Effect.succeed(message))
  )

/** The message of every 500 that has no message of its own: no stack, SQL or internal name. */
export const INTERNAL_ERROR_MESSAGE = "Internal server error."

/** 401: missing, malformed, unknown, expired or revoked token. */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  message: messageOr("Unauthenticated.")
}) {
  static readonly status = 401
  static readonly code = "UNAUTHENTICATED"
  readonly status = Unauthenticated.status
  readonly code = Unauthenticated.code
}

/**
 * 403: the token is valid but lacks the ability the operation needs. The message names the resource's
 * ability and the broad one that would also allow it; the typed client makes it from the `message` it received.
 */
export class InsufficientAbility extends Schema.TaggedError<InsufficientAbility>()("InsufficientAbility", {
  message: Schema.String
}) {
  static readonly status = 403
  static readonly code = "INSUFFICIENT_TOKEN_ABILITY"
  readonly status = InsufficientAbility.status
  readonly code = InsufficientAbility.code
  /** `This token lacks the customers:write (or external-api:write) ability.` */
  static lacking(ability: string, broad: string): InsufficientAbility {
    return new InsufficientAbility({ message: `This token lacks the ${ability} (or ${broad}) ability.` })
  }
}

/** 403: blocked by a business rule, for instance a protected copilot agent. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { message: Schema.String }) {
  static readonly status = 403
  static readonly code = "FORBIDDEN"
  readonly status = Forbidden.status
  readonly code = Forbidden.code
}

/**
 * 404: missing, or in another workspace: the two are indistinguishable. Made from the `resource` name
 * ("Agent not found."); the typed client makes it from the `message` it received.
 */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { message: Schema.String }) {
  static readonly status = 404
  static readonly code = "RESOURCE_NOT_FOUND"
  readonly status = NotFound.status
  readonly code = NotFound.code
  constructor(props: { readonly resource: string } | { readonly message: string }, options?: Schema.MakeOptions) {
    super({ message: "resource" in props ? `${props.resource} not found.` : props.message }, options)
  }
}

/** Field name (request names, nested with dots: `agent_ids.0`) to its messages. */
export const FieldErrors = Schema.Record(Schema.String, Schema.Array(Schema.String))
export type FieldErrors = typeof FieldErrors.Type

/** 422: body, query or path validation failed. */
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  errors: FieldErrors
}) {
  static readonly status = 422
  static readonly code = null
  /** The one message of every validation failure. */
  static readonly summary = "The given data was invalid." as const
  readonly status = ValidationError.status
  readonly code = ValidationError.code
  override get message() {
    return ValidationError.summary
  }
  /** One field, one message. */
  static field(field: string, message: string): ValidationError {
    return new ValidationError({ errors: { [field]: [message] } })
  }
}

/** 400: a message sender that is not in the workspace or not allowed for the conversation. */
export class InvalidSender extends Schema.TaggedError<InvalidSender>()("InvalidSender", { message: Schema.String }) {
  static readonly status = 400
  static readonly code = "INVALID_SENDER"
  readonly status = InvalidSender.status
  readonly code = InvalidSender.code
}

/** 400: an assignee id that names no user or agent of the workspace. */
export class InvalidAssignee
  extends Schema.TaggedError<InvalidAssignee>()("InvalidAssignee", { message: Schema.String })
{
  static readonly status = 400
  static readonly code = "INVALID_ASSIGNEE"
  readonly status = InvalidAssignee.status
  readonly code = InvalidAssignee.code
}

/** 400: an assignee type or agent the conversation's channel rules refuse. */
export class InvalidAssigneeType
  extends Schema.TaggedError<InvalidAssigneeType>()("InvalidAssigneeType", { message: Schema.String })
{
  static readonly status = 400
  static readonly code = "INVALID_ASSIGNEE_TYPE"
  readonly status = InvalidAssigneeType.status
  readonly code = InvalidAssigneeType.code
}

/** 400: an unsupported training data type. */
export class InvalidType extends Schema.TaggedError<InvalidType>()("InvalidType", { message: Schema.String }) {
  static readonly status = 400
  static readonly code = "INVALID_TYPE"
  readonly status = InvalidType.status
  readonly code = InvalidType.code
}

/** 400: an agent in `agent_ids` that is missing or outside the workspace. */
export class InvalidAgent extends Schema.TaggedError<InvalidAgent>()("InvalidAgent", { message: Schema.String }) {
  static readonly status = 400
  static readonly code = "INVALID_AGENT"
  readonly status = InvalidAgent.status
  readonly code = InvalidAgent.code
}

/** 422 (standard envelope): url training must go through `POST /training-data/url/process`. */
export class UrlDiscoveryRequired extends Schema.TaggedError<UrlDiscoveryRequired>()("UrlDiscoveryRequired", {
  message: messageOr("URL training data must be created through the URL process endpoint.")
}) {
  static readonly status = 422
  static readonly code = "URL_DISCOVERY_REQUIRED"
  readonly status = UrlDiscoveryRequired.status
  readonly code = UrlDiscoveryRequired.code
}

/** 422 (standard envelope): a URL process request held no valid URL. */
export class NoUrlsProvided extends Schema.TaggedError<NoUrlsProvided>()("NoUrlsProvided", {
  message: messageOr("No valid URLs were provided.")
}) {
  static readonly status = 422
  static readonly code = "NO_URLS_PROVIDED"
  readonly status = NoUrlsProvided.status
  readonly code = NoUrlsProvided.code
}

/** 422 business-state failure, body `{"success": false, "message"}`: not retryable until state changes. */
export class BusinessStateError extends Schema.TaggedError<BusinessStateError>()("BusinessStateError", {
  message: Schema.String
}) {
  static readonly status = 422
  static readonly code = null
  readonly status = BusinessStateError.status
  readonly code = BusinessStateError.code
}

/** 500 with code PROCESSING_FAILED: URL or training processing failed. */
export class ProcessingFailed extends Schema.TaggedError<ProcessingFailed>()("ProcessingFailed", {
  message: messageOr(INTERNAL_ERROR_MESSAGE)
}) {
  static readonly status = 500
  static readonly code = "PROCESSING_FAILED"
  readonly status = ProcessingFailed.status
  readonly code = ProcessingFailed.code
}

/** 500 with code CREATION_FAILED: a resource could not be created. */
export class CreationFailed extends Schema.TaggedError<CreationFailed>()("CreationFailed", {
  message: messageOr(INTERNAL_ERROR_MESSAGE)
}) {
  static readonly status = 500
  static readonly code = "CREATION_FAILED"
  readonly status = CreationFailed.status
  readonly code = CreationFailed.code
}

/**
 * 500, code null: the database failed. Storage adapters map every driver error to this at the port, so
 * no SQL, driver or table name reaches a caller; `reason` is for logs only and never rendered.
 */
export class PersistenceError extends Schema.TaggedError<PersistenceError>()("PersistenceError", {
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  static readonly status = 500
  static readonly code = null
  readonly status = PersistenceError.status
  readonly code = PersistenceError.code
  override get message() {
    return INTERNAL_ERROR_MESSAGE
  }
}

/** 412 PRECONDITION_FAILED: `If-Match` names a version that is no longer current; nothing was changed. */
export class PreconditionFailed extends Schema.TaggedError<PreconditionFailed>()("PreconditionFailed", {
  message: messageOr("The resource has changed since the version given in If-Match.")
}) {
  static readonly status = 412
  static readonly code = "PRECONDITION_FAILED"
  readonly status = PreconditionFailed.status
  readonly code = PreconditionFailed.code
}

/** 422 IDEMPOTENCY_KEY_REUSED: the key was first used with another request. */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {
  message: messageOr("This Idempotency-Key was already used with a different request.")
}) {
  static readonly status = 422
  static readonly code = "IDEMPOTENCY_KEY_REUSED"
  readonly status = IdempotencyKeyReused.status
  readonly code = IdempotencyKeyReused.code
}

/** 409 IDEMPOTENCY_KEY_IN_USE: the first request with this key is still running. */
export class IdempotencyKeyInUse extends Schema.TaggedError<IdempotencyKeyInUse>()("IdempotencyKeyInUse", {
  message: messageOr("A request with this Idempotency-Key is still in progress; retry later.")
}) {
  static readonly status = 409
  static readonly code = "IDEMPOTENCY_KEY_IN_USE"
  readonly status = IdempotencyKeyInUse.status
  readonly code = IdempotencyKeyInUse.code
}

/** Every error a core operation can fail with. */
export type EngineError =
  | Unauthenticated
  | InsufficientAbility
  | Forbidden
  | NotFound
  | ValidationError
  | InvalidSender
  | InvalidAssignee
  | InvalidAssigneeType
  | InvalidType
  | InvalidAgent
  | UrlDiscoveryRequired
  | NoUrlsProvided
  | BusinessStateError
  | ProcessingFailed
  | CreationFailed
  | PersistenceError
  | PreconditionFailed
  | IdempotencyKeyReused
  | IdempotencyKeyInUse

/** A repository lookup that must find its row: `None` becomes `NotFound` for `resource`. */
export const orNotFound = (resource: string) =>
<A, E, R>(
  self: Effect.Effect<Option.Option<A>, E, R>
): Effect.Effect<A, E | NotFound, R> =>
  Effect.flatMap(
    self,
    Option.match({ onNone: () => Effect.fail(new NotFound({ resource })), onSome: Effect.succeed })
  )
