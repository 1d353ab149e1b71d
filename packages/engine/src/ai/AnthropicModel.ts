/**
 * An Anthropic model as an `effect/ai` `LanguageModel`: the Messages API (`POST {base}/v1/messages`, the base URL
 * without `/v1`, headers `x-api-key` and `anthropic-version`), text in and text out. A structured answer
 * (`generateObject`) is asked for as a call of one tool named after the object, whose input schema is the
 * object's JSON schema (in the form `AnthropicStructuredOutput` makes it) and which the model must call; the
 * call's input is the answer.
 */
import { type Effect, Redacted, Schema } from "effect"
import { AnthropicStructuredOutput, type LanguageModel, type Response } from "effect/ai"
import type { HttpClient } from "effect/http"
import { answerFields, type ModelOptions, providerModel } from "./ProviderHttp.js"

const MODULE = "Anthropic"

/** The default base URL (`SUPPORT_ANTHROPIC_BASE_URL`). */
export const ANTHROPIC_BASE_URL = "https://api.anthropic.com"

/** The API version every request names. */
const API_VERSION = "2023-06-01"

/** The Messages API requires an upper bound; answers are short (the agent's response length), so it never binds. */
const MAX_TOKENS = 4096

/** What the engine reads of a message: its text and tool-use blocks, why it stopped, and the token counts. */
const MessageBody = Schema.Struct({
  ...answerFields,
  content: Schema.Array(Schema.Struct({
    type: Schema.String,
    text: Schema.optional(Schema.String),
    name: Schema.optional(Schema.String),
    input: Schema.optional(Schema.Unknown)
  })),
  stop_reason: Schema.optional(Schema.NullOr(Schema.String))
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

/** The model `options.model` of the Anthropic endpoint, over `http`. */
export const make = (http: HttpClient.HttpClient, options: ModelOptions): Effect.Effect<LanguageModel.LanguageModel> =>
  providerModel(http, {
    endpoint: {
      module: MODULE,
      url: `${options.baseUrl}/v1/messages`,
      headers: { "x-api-key": Redacted.value(options.apiKey), "anthropic-version": API_VERSION }
    },
    request: (messages, format) => {
      const system = messages.filter((m) => m.role === "system").map((m) => m.text).join("\n\n")
      return {
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
    },
    answer: MessageBody,
    read: (answer, format) => {
      const object = format.type === "json" ? format.objectName : undefined
      const texts: Array<string> = []
      for (const block of answer.content) {
        if (block.type === "text" && block.text !== undefined && object === undefined) {
          texts.push(block.text)
        } else if (block.type === "tool_use" && object !== undefined && block.name === object) {
          // `generateObject` reads the structured answer from the text parts.
          texts.push(JSON.stringify(block.input ?? null))
        }
      }
      return { texts, reason: finishReason(answer.stop_reason, object !== undefined) }
    },
    codecTransformer: AnthropicStructuredOutput.toCodecAnthropic
  })
