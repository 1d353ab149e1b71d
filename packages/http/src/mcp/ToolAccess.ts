/**
 * Who may call which MCP tool, and how a tool's failure reads. Every tool names the resource it touches
 * and whether it reads or writes; `mayCall` is the one place that turns that into a decision for a principal. The
 * tools run through core's services, which check the same ability again, so hiding a tool is a courtesy to the model
 * (it never sees what it cannot call), not the guard.
 */
import { INTERNAL_ERROR_MESSAGE, permits, Principal, type PrincipalShape, ValidationError } from "@support-engine/core"
import { Effect, Schema } from "effect"
import { McpServer } from "effect/ai"

export type Access = "read" | "write"

export interface ToolRule {
  /** The API resource the tool touches, as abilities name it. */
  readonly resource: "conversations" | "customers" | "knowledge-base" | "agents"
  readonly access: Access
}

/** Every tool the server registers, by its name (the MCP `target`). */
export const TOOL_RULES: Readonly<Record<string, ToolRule>> = {
  search_conversations: { resource: "conversations", access: "read" },
  get_conversation: { resource: "conversations", access: "read" },
  reply_to_conversation: { resource: "conversations", access: "write" },
  update_conversation: { resource: "conversations", access: "write" },
  search_customers: { resource: "customers", access: "read" },
  get_customer: { resource: "customers", access: "read" },
  search_knowledge_base: { resource: "knowledge-base", access: "read" },
  get_article: { resource: "knowledge-base", access: "read" },
  ask_agent: { resource: "agents", access: "read" },
  suggest_reply: { resource: "conversations", access: "read" },
  summarize_conversation: { resource: "conversations", access: "read" }
}

/** The article resources (ArticleResources.ts): a list names their URI template, a read the URI itself. */
const ARTICLE_RESOURCES = "support://articles/"
const ARTICLE_RULE: ToolRule = { resource: "knowledge-base", access: "read" }

const ruleFor = (target: string): ToolRule | undefined =>
  TOOL_RULES[target] ?? (target.startsWith(ARTICLE_RESOURCES) ? ARTICLE_RULE : undefined)

/**
 * Whether `principal` may call the tool (or read the resources) named `target`: the token's abilities allow the
 * rule's access to its resource (the resource's own ability, or a broad one; write includes read), as the API checks
 * them. A name without a rule is never callable.
 */
export const mayCall = (principal: PrincipalShape, target: string): boolean => {
  const rule = ruleFor(target)
  return rule !== undefined && permits(principal, rule)
}

/** Lists and calls show only what the request's principal may call; another name answers "not found". */
export const ToolVisibility = McpServer.visibility(({ target }) =>
  Effect.map(Principal, (principal) => mayCall(principal, target))
)

/**
 * A tool's failure as the model reads it: `CODE: message`, the code and message the HTTP API would answer (a 422's
 * field errors follow its message). The text is the whole error: a failed tool result carries no structured content.
 */
export class ToolFailed extends Schema.TaggedError<ToolFailed>()("ToolFailed", {
  code: Schema.String,
  message: Schema.String
}) {}

/** What every core failure carries (core's Errors.ts). */
interface CoreFailure {
  readonly status: number
  readonly code: string | null
  readonly message: string
}

/** The code of a failure whose HTTP body has none: the status says what kind it is. */
const fallbackCode = (error: CoreFailure): string =>
  error instanceof ValidationError ? "VALIDATION_ERROR" : error.status >= 500 ? "INTERNAL_ERROR" : "BAD_REQUEST"

const fieldList = (error: ValidationError): string =>
  Object.entries(error.errors).map(([field, messages]) => `${field}: ${messages.join(", ")}`).join("; ")

export const toToolFailed = (error: CoreFailure): ToolFailed => {
  const code = error.code ?? fallbackCode(error)
  const message = error instanceof ValidationError
    ? `${error.message} ${fieldList(error)}`
    : error.status >= 500
    ? INTERNAL_ERROR_MESSAGE
    : error.message
  return new ToolFailed({ code, message: `${code}: ${message}` })
}

/**
 * A core call as a tool's work: its failures become `ToolFailed`; those the server answers 5xx for are logged
 * first (with their cause, which the model never sees).
 */
export const asTool = <A, E extends CoreFailure, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, ToolFailed, R> =>
  Effect.catch(effect, (error) =>
    error.status >= 500
      ? Effect.andThen(Effect.logError("MCP tool failed", error), Effect.fail(toToolFailed(error)))
      : Effect.fail(toToolFailed(error)))
