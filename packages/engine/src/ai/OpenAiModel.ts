/**
 * An OpenAI model as an `effect/ai` `LanguageModel`: the Responses API (`POST {base}/responses`, the base URL
 * ending in `/v1`, a bearer key), text in and text out. A structured answer (`generateObject`) is asked for with
 * `text.format` set to the object's JSON schema (strict), in the form `OpenAiStructuredOutput` makes it.
 */
import { Effect, Redacted, Schema } from "effect"
import { LanguageModel, OpenAiStructuredOutput, type Response } from "effect/ai"
import type { HttpClient } from "effect/http"
import { asStream, type Endpoint, noTools, postJson, textMessages } from "./ProviderHttp.js"

const MODULE = "OpenAI"

/** The default base URL (`SUPPORT_OPENAI_BASE_URL`). */
export const OPENAI_BASE_URL = "https://api.openai.com/v1"

/** What the engine reads of a response: the output texts, why it stopped, and the token counts. */
const ResponseBody = Schema.Struct({
  id: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  status: Schema.optional(Schema.NullOr(Schema.String)),
  incomplete_details: Schema.optional(Schema.NullOr(Schema.Struct({ reason: Schema.optional(Schema.String) }))),
  output: Schema.Array(Schema.Struct({
    type: Schema.String,
    content: Schema.optional(Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })))
  })),
  usage: Schema.optional(Schema.NullOr(Schema.Struct({
    input_tokens: Schema.optional(Schema.Number),
    output_tokens: Schema.optional(Schema.Number)
  })))
})

const finishReason = (body: typeof ResponseBody.Type): Response.FinishReason => {
  if (body.status === "completed") return "stop"
  switch (body.incomplete_details?.reason) {
    case "max_output_tokens":
      return "length"
    case "content_filter":
      return "content-filter"
    default:
      return "unknown"
  }
}

export interface OpenAiModelOptions {
  readonly apiKey: Redacted.Redacted
  /** Without a trailing slash. */
  readonly baseUrl: string
  readonly model: string
}

/** The model `options.model` of the OpenAI endpoint, over `http`. */
export const make = (
  http: HttpClient.HttpClient,
  options: OpenAiModelOptions
): Effect.Effect<LanguageModel.LanguageModel> => {
  const endpoint: Endpoint = {
    module: MODULE,
    url: `${options.baseUrl}/responses`,
    headers: { authorization: `Bearer ${Redacted.value(options.apiKey)}` }
  }

  const generateText = (providerOptions: LanguageModel.ProviderOptions) =>
    Effect.gen(function*() {
      yield* noTools(MODULE, providerOptions)
      const messages = yield* textMessages(MODULE, providerOptions.prompt)
      const format = providerOptions.responseFormat
      const body = {
        model: options.model,
        input: messages.map((m) => ({ role: m.role, content: m.text })),
        ...(format.type === "json"
          ? {
            text: {
              format: {
                type: "json_schema",
                name: format.objectName,
                schema: OpenAiStructuredOutput.toCodecOpenAI(format.schema).jsonSchema,
                strict: true
              }
            }
          }
          : {})
      }
      const answer = yield* postJson(http, endpoint, body, ResponseBody)
      const parts: Array<Response.PartEncoded> = [
        { type: "response-metadata", id: answer.id, modelId: answer.model }
      ]
      for (const item of answer.output) {
        if (item.type !== "message") continue
        for (const content of item.content ?? []) {
          if (content.type === "output_text" && content.text !== undefined) {
            parts.push({ type: "text", text: content.text })
          }
        }
      }
      parts.push({
        type: "finish",
        reason: finishReason(answer),
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
    codecTransformer: OpenAiStructuredOutput.toCodecOpenAI
  })
}
