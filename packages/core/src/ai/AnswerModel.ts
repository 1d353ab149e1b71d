/**
 * The language-model port of AI agents. Callers hand it a structured request rather than a prompt string, so
 * the offline `local` model can answer extractively from the passages and a remote provider's adapter renders the
 * same request as its prompt.
 */
import { Config, Context, Effect, Layer, Option, Schema, SchemaIssue } from "effect"
import type { Agent, EscalationRule } from "../agents/Agent.js"
import type { Passage } from "./Answer.js"
import { ruleMatches } from "./Guardrails.js"

/**
 * The model could not answer (after the caller's timeout and retries): the agent hands off (`model_error`).
 * `retryable` false (a 4xx such as a bad key or an unknown model) is not tried again; absent means it may be.
 */
export class ModelFailed extends Schema.TaggedError<ModelFailed>()("ModelFailed", {
  message: Schema.String,
  retryable: Schema.optional(Schema.Boolean)
}) {}

export interface AnswerRequest {
  readonly agent: Agent
  /** The conversation so far, oldest first (empty for the ask endpoint). */
  readonly history: ReadonlyArray<{ readonly role: "customer" | "agent"; readonly content: string }>
  readonly question: string
  /** Retrieved passages, best first; never empty (no passage is a `no_answer` handoff before the model). */
  readonly passages: ReadonlyArray<Passage>
  /** Set when a first draft contained a prohibited phrase: the phrases to avoid on the second try. */
  readonly avoid: ReadonlyArray<string>
  /** The customer's locale (`fr`, `de-AT`), when known: the language to answer in. */
  readonly locale?: string | null
}

/** What a summary is written from: the conversation's public messages, oldest first. */
export interface SummaryRequest {
  readonly agent: Agent
  readonly transcript: ReadonlyArray<{ readonly role: "customer" | "agent"; readonly content: string }>
  /** The length limit of the summary, in characters. */
  readonly maxLength: number
  /** Set on a second try, when the first summary contained a prohibited phrase. */
  readonly avoid: ReadonlyArray<string>
  readonly locale?: string | null
}

export interface AnswerModelShape {
  readonly answer: (request: AnswerRequest) => Effect.Effect<string, ModelFailed>
  /**
   * The first of the rules (all of the conversation's channel) that the customer's message calls for, if any.
   * `agent` names the model a remote provider classifies with (its `model`); without it, the provider's default.
   */
  readonly matchRule: (
    message: string,
    rules: ReadonlyArray<EscalationRule>,
    agent?: Agent
  ) => Effect.Effect<Option.Option<EscalationRule>, ModelFailed>
  /**
   * A summary of the conversation for the person who takes it over. Optional: a model without it (the local one)
   * gets the extractive summary, quoted from the messages.
   */
  readonly summarize?: (request: SummaryRequest) => Effect.Effect<string, ModelFailed>
}

/** The model agents answer with; without a layer of its own, the local model below (Context.Reference). */
export const AnswerModel: Context.Reference<AnswerModelShape> = Context.Reference<AnswerModelShape>(
  "@support-engine/core/AnswerModel",
  { defaultValue: () => localModel }
)
/** What a layer of the model provides: nothing a service must require, since the reference has a default. */
export type AnswerModel = Context.Service.Identifier<typeof AnswerModel>

/** Characters of an answer per `response_length`; a number of characters is taken as it is. */
export const answerLength = (responseLength: string): number => {
  const n = /^\d+$/.test(responseLength.trim()) ? Number(responseLength.trim()) : Number.NaN
  if (Number.isInteger(n) && n > 0) return Math.min(n, 4000)
  switch (responseLength.trim().toLowerCase()) {
    case "short":
      return 200
    case "long":
      return 1000
    default:
      return 500
  }
}

/** Cuts text to at most `max` characters at a word boundary, with an ellipsis when it cut. */
export const trimTo = (text: string, max: number): string => {
  const clean = text.replace(/\s+/g, " ").trim()
  if (clean.length <= max) return clean
  const cut = clean.slice(0, max - 1)
  const space = cut.lastIndexOf(" ")
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`
}

/**
 * The offline, deterministic model (`SUPPORT_AI_PROVIDER=local`): the best passage, trimmed to the agent's response
 * length. Asked to avoid phrases, it answers with the next passage that contains none of them, else the same draft
 * (which the guardrail then refuses). Escalation rules match by words (see `ruleMatches`).
 */
const localModel: AnswerModelShape = {
  answer: (request) =>
    Effect.sync(() => {
      const max = answerLength(request.agent.response_length)
      const drafts = request.passages.map((p) => trimTo(p.text, max))
      if (request.avoid.length === 0) return drafts[0]!
      const lower = (s: string) => s.toLowerCase()
      return drafts.find((d) => request.avoid.every((a) => !lower(d).includes(lower(a)))) ?? drafts[0]!
    }),
  matchRule: (message, rules) => Effect.succeed(Option.fromNullishOr(rules.find((r) => ruleMatches(message, r.rule))))
}

export const LocalAnswerModel: Layer.Layer<AnswerModel> = Layer.succeed(AnswerModel, localModel)

/**
 * The model `SUPPORT_AI_PROVIDER` names, as far as core can build it: `local` (the default). `openai` and `anthropic`
 * make HTTP calls, so their layer is the engine package's `AnswerModelLive` (which its layer uses); this one refuses
 * them.
 */
export const AnswerModelFromConfig: Layer.Layer<AnswerModel, Config.ConfigError> = Layer.unwrap(
  Effect.gen(function*() {
    const provider = yield* Config.Literals(["local", "openai", "anthropic"], "SUPPORT_AI_PROVIDER").pipe(
      Config.withDefault("local" as const)
    )
    if (provider === "local") return LocalAnswerModel
    return yield* Effect.fail(
      new Config.ConfigError(
        new Schema.SchemaError(
          new SchemaIssue.Pointer(
            ["SUPPORT_AI_PROVIDER"],
            new SchemaIssue.InvalidValue({
              message: `The ${provider} provider is built by AnswerModelLive of @support-engine/engine, not by core.`
            })
          )
        )
      )
    )
  })
)
