/**
 * Every expected failure of the engine (D12-D15). Each error carries what an adapter needs to render it:
 * `status`, `code` (null where the contract has none) and a human-readable `message`.
 * The HTTP adapter maps them to bodies in one place; in-process callers see the same values.
 */
import { Effect, Option, Schema } from "effect"

/** 401: missing, malformed, unknown, expired or revoked token. */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  message: Schema.optionalWith(Schema.String, { default: () => "Unauthenticated." })
}) {
  get status() {
    return 401 as const
  }
  get code() {
    return "UNAUTHENTICATED" as const
  }
}

/** 403: the token is valid but lacks the ability the operation needs (D10). */
export class InsufficientAbility extends Schema.TaggedError<InsufficientAbility>()("InsufficientAbility", {
  ability: Schema.Literal("external-api:read", "external-api:write")
}) {
  override get message() {
    return `This token lacks the ${this.ability} ability.`
  }
  get status() {
    return 403 as const
  }
  get code() {
    return "INSUFFICIENT_TOKEN_ABILITY" as const
  }
}

/** 403: blocked by a business rule, for instance a protected copilot agent (D23). */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  message: Schema.String
}) {
  get status() {
    return 403 as const
  }
  get code() {
    return "FORBIDDEN" as const
  }
}

/** 404: missing, or in another workspace: the two are indistinguishable (D11). */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  resource: Schema.String
}) {
  override get message() {
    return `${this.resource} not found.`
  }
  get status() {
    return 404 as const
  }
  get code() {
    return "RESOURCE_NOT_FOUND" as const
  }
}

/** Field name (request names, nested with dots: `agent_ids.0`) to its messages (D13). */
export const FieldErrors = Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) })
export type FieldErrors = typeof FieldErrors.Type

/** 422: body, query or path validation failed (D13). */
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  errors: FieldErrors
}) {
  override get message() {
    return "The given data was invalid."
  }
  get status() {
    return 422 as const
  }
  get code() {
    return null
  }
  /** One field, one message. */
  static field(field: string, message: string): ValidationError {
    return new ValidationError({ errors: { [field]: [message] } })
  }
}

/** 400: a message sender that is not in the workspace or not allowed for the conversation (D29). */
export class InvalidSender extends Schema.TaggedError<InvalidSender>()("InvalidSender", { message: Schema.String }) {
  get status() {
    return 400 as const
  }
  get code() {
    return "INVALID_SENDER" as const
  }
}

/** 400: an assignee id that names no user or agent of the workspace (D27). */
export class InvalidAssignee
  extends Schema.TaggedError<InvalidAssignee>()("InvalidAssignee", { message: Schema.String })
{
  get status() {
    return 400 as const
  }
  get code() {
    return "INVALID_ASSIGNEE" as const
  }
}

/** 400: an assignee type or agent the conversation's channel rules refuse (D27). */
export class InvalidAssigneeType
  extends Schema.TaggedError<InvalidAssigneeType>()("InvalidAssigneeType", { message: Schema.String })
{
  get status() {
    return 400 as const
  }
  get code() {
    return "INVALID_ASSIGNEE_TYPE" as const
  }
}

/** 400: an unsupported training data type (D30). */
export class InvalidType extends Schema.TaggedError<InvalidType>()("InvalidType", { message: Schema.String }) {
  get status() {
    return 400 as const
  }
  get code() {
    return "INVALID_TYPE" as const
  }
}

/** 400: an agent in `agent_ids` that is missing or outside the workspace (D30). */
export class InvalidAgent extends Schema.TaggedError<InvalidAgent>()("InvalidAgent", { message: Schema.String }) {
  get status() {
    return 400 as const
  }
  get code() {
    return "INVALID_AGENT" as const
  }
}

/** 422 (standard envelope): url training must go through `POST /training-data/url/process` (D30). */
export class UrlDiscoveryRequired extends Schema.TaggedError<UrlDiscoveryRequired>()("UrlDiscoveryRequired", {
  message: Schema.optionalWith(Schema.String, {
    default: () => "URL training data must be created through the URL process endpoint."
  })
}) {
  get status() {
    return 422 as const
  }
  get code() {
    return "URL_DISCOVERY_REQUIRED" as const
  }
}

/** 422 (standard envelope): a URL process request held no valid URL (D30). */
export class NoUrlsProvided extends Schema.TaggedError<NoUrlsProvided>()("NoUrlsProvided", {
  message: Schema.optionalWith(Schema.String, { default: () => "No valid URLs were provided." })
}) {
  get status() {
    return 422 as const
  }
  get code() {
    return "NO_URLS_PROVIDED" as const
  }
}

/** 422 business-state failure, body `{"success": false, "message"}` (D14): not retryable until state changes. */
export class BusinessStateError extends Schema.TaggedError<BusinessStateError>()("BusinessStateError", {
  message: Schema.String
}) {
  get status() {
    return 422 as const
  }
  get code() {
    return null
  }
}

/** 500 with code PROCESSING_FAILED: URL or training processing failed. */
export class ProcessingFailed extends Schema.TaggedError<ProcessingFailed>()("ProcessingFailed", {
  message: Schema.optionalWith(Schema.String, { default: () => "Internal server error." })
}) {
  get status() {
    return 500 as const
  }
  get code() {
    return "PROCESSING_FAILED" as const
  }
}

/** 500 with code CREATION_FAILED: a resource could not be created. */
export class CreationFailed extends Schema.TaggedError<CreationFailed>()("CreationFailed", {
  message: Schema.optionalWith(Schema.String, { default: () => "Internal server error." })
}) {
  get status() {
    return 500 as const
  }
  get code() {
    return "CREATION_FAILED" as const
  }
}

/**
 * 500, code null: the database failed. Storage adapters map every driver error to this at the port, so
 * no SQL, driver or table name reaches a caller; `reason` is for logs only and never rendered.
 */
export class PersistenceError extends Schema.TaggedError<PersistenceError>()("PersistenceError", {
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  override get message() {
    return "Internal server error."
  }
  get status() {
    return 500 as const
  }
  get code() {
    return null
  }
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

/** A repository lookup that must find its row: `None` becomes `NotFound` for `resource` (D11). */
export const orNotFound = (resource: string) =>
<A, E, R>(
  self: Effect.Effect<Option.Option<A>, E, R>
): Effect.Effect<A, E | NotFound, R> =>
  Effect.flatMap(
    self,
    Option.match({ onNone: () => Effect.fail(new NotFound({ resource })), onSome: Effect.succeed })
  )
