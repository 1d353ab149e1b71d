/** AI support agents (spec "Agent"). */
import { Schema, SchemaTransformation } from "effect"
import { AgentId, EscalationRuleId, ProhibitedPhraseId, UserId } from "../shared/Ids.js"
import * as Model from "../shared/Model.js"
import { PageRequest } from "../shared/Pagination.js"
import { Timestamp } from "../shared/Timestamp.js"
import { BoundedString, HttpUrl } from "../shared/Validation.js"

export class ProhibitedPhrase extends Model.Class<ProhibitedPhrase>("ProhibitedPhrase")({
  id: ProhibitedPhraseId,
  phrase: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

export const EscalationChannel = Schema.Literals(["email", "chat"])

export class EscalationRule extends Model.Class<EscalationRule>("EscalationRule")({
  id: EscalationRuleId,
  channel: EscalationChannel,
  rule: Schema.String,
  escalate_to: UserId,
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

export class Agent extends Model.Class<Agent>("Agent")({
  id: AgentId,
  name: Schema.String,
  slug: Schema.String,
  description: Schema.String,
  avatar_url: Schema.NullOr(Schema.String),
  max_messages_per_session: Schema.Int,
  tone: Schema.String,
  response_length: Schema.String,
  is_active: Schema.Boolean,
  is_copilot: Schema.Boolean,
  /** Answers customers in the conversations assigned to it (with `is_active`, never a copilot). */
  auto_reply: Schema.Boolean,
  model: Schema.String,
  prohibited_phrases: Schema.Array(ProhibitedPhrase),
  escalation_rules: Schema.Array(EscalationRule),
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

// Every phrase, rule and list is bounded so that a list of agents cannot grow past a bound in bytes.
const PhraseInput = Schema.Struct({ phrase: BoundedString(500).check(Schema.isMinLength(1)) })
const RuleInput = Schema.Struct({
  channel: EscalationChannel,
  rule: BoundedString(1000).check(Schema.isMinLength(1)),
  escalate_to: UserId
})

const fields = {
  description: Schema.optionalKey(BoundedString(500)),
  avatar_url: Schema.optionalKey(Schema.NullOr(HttpUrl)),
  max_messages_per_session: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 }))),
  tone: Schema.optionalKey(BoundedString(255)),
  response_length: Schema.optionalKey(BoundedString(255)),
  is_active: Schema.optionalKey(Schema.Boolean),
  auto_reply: Schema.optionalKey(Schema.Boolean),
  prohibited_phrases: Schema.optionalKey(Schema.Array(PhraseInput).check(Schema.isMaxLength(100))),
  escalation_rules: Schema.optionalKey(Schema.Array(RuleInput).check(Schema.isMaxLength(50)))
}

const Name = BoundedString(255).check(Schema.isMinLength(1))

/** `POST /agents`: only `name` is required; the model is set by the engine. */
export class CreateAgent extends Model.Class<CreateAgent>("CreateAgent")({ name: Name, ...fields }) {}

/**
 * A field the contract says an update does not accept: present at all, it is a 422. Any JSON value, not
 * `Schema.Unknown`: Effect leaves the checks of `Unknown` out of JSON Schema, and OpenAPI must show `not: {}`.
 */
export const Prohibited = Schema.optionalKey(
  Schema.Json.check(Schema.makeFilter(() => "is prohibited", { toJsonSchema: () => ({ not: {} }) }))
)

/** `PUT /agents/{id}`: present fields change; lists replace the whole list; `model` is refused. */
export class UpdateAgent extends Model.Class<UpdateAgent>("UpdateAgent")({
  name: Schema.optionalKey(Name),
  ...fields,
  model: Prohibited
}) {}

/** `"true"`/`"false"` from a query string, or a boolean from an in-process caller. */
export const BooleanFlag = Schema.Union([
  Schema.Boolean,
  Schema.Literals(["true", "false", "1", "0"]).pipe(Schema.decodeTo(
    Schema.Boolean,
    SchemaTransformation.transform({
      decode: (s) => s === "true" || s === "1",
      encode: (b) => (b ? "true" as const : "false" as const)
    })
  ))
])

/** `GET /agents`: filter `is_active`. */
export class ListAgents extends Model.Class<ListAgents>("ListAgents")({
  ...PageRequest.fields,
  is_active: Schema.optionalKey(BooleanFlag)
}) {}

/** A URL-safe slug of a name: lower-case ASCII letters and digits joined by single dashes. */
export const slugify = (name: string): string => {
  const slug = name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "").slice(0, 200).replace(/-+$/, "")
  return slug.length === 0 ? "agent" : slug
}
