/**
 * An Anthropic model as an `effect/ai` `LanguageModel`: the Messages API (`POST {base}/v1/messages`, the base URL
 * without `/v1`, headers `x-api-key` and `anthropic-version`), text in and text out. A structured answer
 * (`generateObject`) is asked for as a call of one tool named after the object, whose input schema is the
 * object's JSON schema (in the form `AnthropicStructuredOutput` makes it) and which the model must call; the
 * call's input is the answer.
 */
import { Effect, Redacted, Schema } from "effect"
import { AnthropicStructuredOutput, LanguageModel, type Response } from "effect/ai"
import type { HttpClient } from "effect/http"
import { asStream, type Endpoint, noTools, postJson, textMessages } from "./ProviderHttp.js"

const MODULE = "Anthropic"

/** The default base URL (`SUPPORT_ANTHROPIC_BASE_URL`). */
export const ANTHROPIC_BASE_URL = "https://api.anthropic.com"

/** The API version every request names. */
const API_VERSION = "2023-06-01"

/** The Messages API requires an upper bound; answers are short (the agent's response length), so it never binds. */
const MAX_TOKENS = 4096

/** What the engine reads of a message: its text and tool-use blocks, why it stopped, and the token counts. */
const MessageBody = Schema.Struct({
  id: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  content: Schema.Array(Schema.Struct({
    type: Schema.String,
    text: Schema.optional(Schema.String),
    name: Schema.optional(Schema.String),
    input: Schema.optional(Schema.Unknown)
  })),
  stop_reason: Schema.optional(Schema.NullOr(Schema.String)),
  usage: Schema.optional(Schema.NullOr(Schema.Struct({
    input_tokens: Schema.optional(Schema.Number),
    output_tokens: Schema.optional(Schema.Number)
  })))
})

const finishReason = (stopReason: string | null | undefined, object: boolean): Response.FinishReason => {
  switch (stopReason) {
    case "end_turn":
    case "stop_sequence":
      return "stop"
    case "max_tokens":
      return "length"
    case "tool_use":
      // The forced tool call is the structured answer itself, not a call for the caller to run.
      return object ? "stop" : "tool-calls"
    case "refusal":
      return "content-filter"
    default:
      return "unknown"
  }
}

export interface AnthropicModelOptions {
  readonly apiKey: Redacted.Redacted
  /** Without a trailing slash. */
  readonly baseUrl: string
  readonly model: string
}

/** The model `options.model` of the Anthropic endpoint, over `http`. */
export const make = (
  http: HttpClient.HttpClient,
  options: AnthropicModelOptions
): Effect.Effect<LanguageModel.LanguageModel> => {
  const endpoint: Endpoint = {
    module: MODULE,
    url: `${options.baseUrl}/v1/messages`,
    headers: { "x-api-key": Redacted.value(options.apiKey), "anthropic-version": API_VERSION }
  }

  const generateText = (providerOptions: LanguageModel.ProviderOptions) =>
    Effect.gen(function*() {
      yield* noTools(MODULE, providerOptions)
      const messages = yield* textMessages(MODULE, providerOptions.prompt)
      const system = messages.filter((m) => m.role === "system").map((m) => m.text).join("\n\n")
      const format = providerOptions.responseFormat
      const object = format.type === "json" ? format.objectName : undefined
      const body = {
        model: options.model,
        max_tokens: MAX_TOKENS,
        ...(system === "" ? {} : { system }),
        messages: messages.flatMap((m) => m.role === "system" ? [] : [{ role: m.role, content: m.text }]),
        ...(format.type === "json"
          ? {
            tools: [{
              name: format.objectName,
              description: `Give your answer as the input of this tool.`,
              input_schema: AnthropicStructuredOutput.toCodecAnthropic(format.schema).jsonSchema
            }],
            tool_choice: { type: "tool", name: format.objectName }
          }
          : {})
      }
      const answer = yield* postJson(http, endpoint, body, MessageBody)
      const parts: Array<Response.PartEncoded> = [
        { type: "response-metadata", id: answer.id, modelId: answer.model }
      ]
      for (const block of answer.content) {
        if (block.type === "text" && block.text !== undefined && object === undefined) {
          parts.push({ type: "text", text: block.text })
        } else if (block.type === "tool_use" && object !== undefined && block.name === object) {
          // `generateObject` reads the structured answer from the text parts.
          parts.push({ type: "text", text: JSON.stringify(block.input ?? null) })
        }
      }
      parts.push({
        type: "finish",
        reason: finishReason(answer.stop_reason, object !== undefined),
        usage: {
          inputTokens: { total: answer.usage?.input_tokens },
          outputTokens: { total: answer.usage?.output_tokens }
        }
      })
      return parts
    })

  return LanguageModel.make({
    generateText,
    streamText: (providerOptions) => asStream(generateText(providerOptions)),
    codecTransformer: AnthropicStructuredOutput.toCodecAnthropic
  })
}
