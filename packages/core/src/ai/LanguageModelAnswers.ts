/**
 * The `AnswerModel` on any `effect/ai` `LanguageModel`: the remote providers (`openai`, `anthropic`) are this
 * model over their `LanguageModel`, which storage builds from configuration. The answer is one text generation from
 * a prompt made of the agent's settings, the passages and the conversation; an escalation rule is chosen by one
 * structured classification call (`generateObject` with a schema).
 *
 * Imported as `@support-engine/core/LanguageModelAnswers`, not from the package's index: loading `@effect/ai` costs
 * tens of milliseconds of every start, and only a remote provider needs it. It imports `effect/ai`'s modules one by
 * one for the same reason (the `effect/ai` index loads MCP and the rest).
 *
 * Provider errors (`AiError`) may carry the provider's body and the transport's error: they are mapped here to
 * `ModelFailed` with a message of our own (provider, status, kind) and never passed on or logged.
 */
import { Effect, Option, Schema } from "effect"
import type * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import type { Agent, EscalationRule } from "../agents/Agent.js"
import {
  answerLength,
  type AnswerModelShape,
  type AnswerRequest,
  ModelFailed,
  type SummaryRequest
} from "./AnswerModel.js"

/** Where the language models come from: one per model name (the agent's `model`). */
export interface ModelSource {
  /** For messages: `openai`, `anthropic`. */
  readonly provider: string
  /** The provider's model named `model`. */
  readonly languageModel: (model: string) => Effect.Effect<LanguageModel.LanguageModel>
  /** The model that classifies when no agent is given. */
  readonly defaultModel: string
}

/** The language instruction: the customer's locale when known, else whatever language the customer writes in. */
export const languageOf = (locale: string | null | undefined): string =>
  locale === null || locale === undefined || locale.trim() === ""
    ? "in the customer's language"
    : `in the language of the locale ${JSON.stringify(locale.trim())} (the customer's language)`

/** The system instruction: who the agent is, how it answers, and the passages it answers from, numbered. */
export const systemPrompt = (request: AnswerRequest): string => {
  const { agent } = request
  const lines = [
    `You are ${agent.name}, a customer support agent.`,
    ...(agent.description.trim() === "" ? [] : [`About you: ${agent.description.trim()}`]),
    `Tone: ${agent.tone}.`,
    `Answer in at most ${answerLength(agent.response_length)} characters, ${languageOf(request.locale)}.`,
    "Answer only from the sources below. If they do not contain the answer, say that you do not know.",
    ...(request.avoid.length === 0
      ? []
      : [`Never use these words or phrases: ${request.avoid.map((p) => JSON.stringify(p)).join(", ")}.`]),
    "",
    "Sources:",
    ...request.passages.map((p, i) => `[${i + 1}] ${p.citation.title}\n${p.text}`)
  ]
  return lines.join("\n")
}

/** The whole prompt: the system instruction, the conversation so far, then the customer's message. */
export const answerPrompt = (request: AnswerRequest): Prompt.RawInput => [
  { role: "system", content: systemPrompt(request) },
  ...request.history.map((m) =>
    m.role === "customer"
      ? { role: "user" as const, content: m.content }
      : { role: "assistant" as const, content: m.content }
  ),
  { role: "user", content: request.question }
]

/** The summary's prompt: the instruction, then the conversation as one transcript (it is read, not continued). */
export const summaryPrompt = (request: SummaryRequest): Prompt.RawInput => [
  {
    role: "system",
    content: [
      `You are ${request.agent.name}. Summarise this customer support conversation for the colleague who takes it ` +
      `over, in at most ${request.maxLength} characters, ${languageOf(request.locale)}: the customer's first ` +
      "request, what was answered, and what is still open. Use only what the conversation says.",
      ...(request.avoid.length === 0
        ? []
        : [`Never use these words or phrases: ${request.avoid.map((p) => JSON.stringify(p)).join(", ")}.`])
    ].join("\n")
  },
  {
    role: "user",
    content: request.transcript.map((m) => `${m.role === "customer" ? "Customer" : "Support"}: ${m.content}`)
      .join("\n\n")
  }
]

/** The classification's answer: the number of the rule the message calls for, or null. */
export const RuleChoice = Schema.Struct({
  rule: Schema.NullOr(Schema.Int).annotate({
    description: "The number of the first rule that the customer's message calls for, or null when none does"
  })
})

export const rulePrompt = (message: string, rules: ReadonlyArray<EscalationRule>): Prompt.RawInput => [
  {
    role: "system",
    content: [
      "You decide whether a customer's message must be handed to a person. These are the handoff rules:",
      ...rules.map((r, i) => `${i + 1}. ${r.rule}`),
      "Answer with the number of the first rule the message calls for, or null when none does."
    ].join("\n")
  },
  { role: "user", content: message }
]

/** An `AiError` as our error: which provider, and what kind of failure; nothing of the request or the body. */
export const toModelFailed = (provider: string) => (error: AiError.AiError): ModelFailed => {
  const reason = error.reason
  // The HTTP status the provider answered, whatever the reason it was classified as (rate limit, bad key, ...).
  const status = "http" in reason ? reason.http?.response?.status : undefined
  if (status !== undefined) {
    return new ModelFailed({
      message: `${provider} answered ${status} (StatusCode)`,
      retryable: status === 429 || status >= 500
    })
  }
  switch (reason._tag) {
    case "NetworkError":
      return new ModelFailed({ message: `${provider} could not be reached (${reason.reason})`, retryable: true })
    case "InvalidOutputError":
    case "StructuredOutputError":
    case "InvalidResponseError":
      return new ModelFailed({ message: `${provider} answered in a shape that could not be read`, retryable: true })
    case "InvalidRequestError":
    case "InvalidUserInputError":
    case "UnsupportedSchemaError":
      return new ModelFailed({ message: `${provider} refused the request as malformed`, retryable: false })
    case "UnknownError":
      return new ModelFailed({ message: `${provider} failed`, retryable: true })
    default:
      return new ModelFailed({ message: `${provider} failed`, retryable: reason.isRetryable })
  }
}

/** The answer model over `source`'s language models. */
export const languageModelAnswers = (source: ModelSource): AnswerModelShape => {
  const withModel = (agent: Agent | undefined) =>
    Effect.provideServiceEffect(LanguageModel.LanguageModel, source.languageModel(agent?.model ?? source.defaultModel))
  // Logged once per failed call, as our message only, so an operator sees why agents hand off (model_error).
  const failed = (error: AiError.AiError) => {
    const mapped = toModelFailed(source.provider)(error)
    return Effect.andThen(Effect.logWarning("The language model failed", mapped.message), Effect.fail(mapped))
  }

  return {
    answer: (request) =>
      LanguageModel.generateText({ prompt: answerPrompt(request) }).pipe(
        withModel(request.agent),
        Effect.catch(failed),
        Effect.flatMap((response) =>
          response.text.trim() === ""
            ? Effect.fail(new ModelFailed({ message: `${source.provider} gave an empty answer`, retryable: true }))
            : Effect.succeed(response.text.trim())
        ),
        Effect.withSpan("LanguageModelAnswers.answer", { attributes: { provider: source.provider } })
      ),
    summarize: (request) =>
      LanguageModel.generateText({ prompt: summaryPrompt(request) }).pipe(
        withModel(request.agent),
        Effect.catch(failed),
        Effect.flatMap((response) =>
          response.text.trim() === ""
            ? Effect.fail(new ModelFailed({ message: `${source.provider} gave an empty summary`, retryable: true }))
            : Effect.succeed(response.text.trim())
        ),
        Effect.withSpan("LanguageModelAnswers.summarize", { attributes: { provider: source.provider } })
      ),
    matchRule: (message, rules, agent) =>
      rules.length === 0
        ? Effect.succeedNone
        : LanguageModel.generateObject({
          prompt: rulePrompt(message, rules),
          schema: RuleChoice,
          objectName: "escalation"
        }).pipe(
          withModel(agent),
          Effect.catch(failed),
          // A number out of range is read as no rule: the message is answered rather than handed to nobody.
          Effect.map(({ value }) => Option.fromNullishOr(value.rule === null ? undefined : rules[value.rule - 1])),
          Effect.withSpan("LanguageModelAnswers.matchRule", { attributes: { provider: source.provider } })
        )
  }
}
