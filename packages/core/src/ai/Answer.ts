/** What an AI agent answers with: citations, passages, handoffs. */
import { Schema } from "effect"
import { EscalationChannel } from "../agents/Agent.js"
import { AgentId, EscalationRuleId, UserId, Uuid } from "../shared/Ids.js"
import * as Model from "../shared/Model.js"
import { BoundedString } from "../shared/Validation.js"

export const CitationType = Schema.Literals(["training_data", "kb_article"])
export type CitationType = typeof CitationType.Type

/** A source an answer was drawn from. `url` is the source's address when it has one (a url item, an article's). */
export class Citation extends Model.Class<Citation>("Citation")({
  type: CitationType,
  id: Uuid,
  title: Schema.String,
  url: Schema.NullOr(Schema.String)
}) {}

/** A retrieved passage: the text of one source, its citation and its locale (articles only). */
export interface Passage {
  readonly citation: Citation
  readonly locale: string | null
  readonly text: string
}

export const HandoffReason = Schema.Literals([
  "prohibited_phrase",
  "usage_limit",
  "escalation_rule",
  "no_answer",
  "model_error"
])
export type HandoffReason = typeof HandoffReason.Type

/** Why the agent would hand the conversation to a person: a rule names whom to (`escalate_to`), else nobody. */
export class Escalation extends Model.Class<Escalation>("Escalation")({
  reason: HandoffReason,
  rule_id: Schema.NullOr(EscalationRuleId),
  escalate_to: Schema.NullOr(UserId)
}) {}

/** A question is a customer message: the same 4,000-character bound the ask endpoint documents. */
export const MAX_QUESTION_LENGTH = 4000

/** `POST /agents/{id}/ask`. */
export class AskAgent extends Model.Class<AskAgent>("AskAgent")({
  question: BoundedString(MAX_QUESTION_LENGTH).check(Schema.isMinLength(1)),
  channel: EscalationChannel,
  locale: Schema.optionalKey(BoundedString(10))
}) {}

/** The answer of `POST /agents/{id}/ask`: `answer` is null exactly when `escalation` is set. */
export class AskAnswer extends Model.Class<AskAnswer>("AskAnswer")({
  answer: Schema.NullOr(Schema.String),
  citations: Schema.Array(Citation),
  escalation: Schema.NullOr(Escalation)
}) {}

/** `POST /conversations/{id}/suggest-reply`: the agent whose content drafts the reply. */
export class SuggestReply extends Model.Class<SuggestReply>("SuggestReply")({
  agent_id: AgentId,
  /** The language to prefer; the customer's `locale` when absent. */
  locale: Schema.optionalKey(BoundedString(10))
}) {}

/** A draft for a person to send: `suggestion` is null when the agent would hand off (`escalation`) or has nothing to answer. */
export class SuggestedReply extends Model.Class<SuggestedReply>("SuggestedReply")({
  suggestion: Schema.NullOr(Schema.String),
  citations: Schema.Array(Citation),
  escalation: Schema.NullOr(Escalation)
}) {}

/** `POST /conversations/{id}/summarize`. */
export class SummarizeConversation extends Model.Class<SummarizeConversation>("SummarizeConversation")({
  agent_id: AgentId
}) {}
