/**
 * An OpenAI model as an `effect/ai` `LanguageModel`: the Responses API (`POST {base}/responses`, the base URL
 * ending in `/v1`, a bearer key), text in and text out. A structured answer (`generateObject`) is asked for with
 * `text.format` set to the object's JSON schema (strict), in the form `OpenAiStructuredOutput` makes it.
 */
import { type Effect, Redacted, Schema } from "effect"
import { type LanguageModel, OpenAiStructuredOutput, type Response } from "effect/ai"
import type { HttpClient } from "effect/http"
import { answerFields, type ModelOptions, providerModel } from "./ProviderHttp.js"

const MODULE = "OpenAI"

/** The default base URL (`SUPPORT_OPENAI_BASE_URL`). */
export const OPENAI_BASE_URL = "https://api.openai.com/v1"

/** What the engine reads of a response: the output texts, why it stopped, and the token counts. */
const ResponseBody = Schema.Struct({
  ...answerFields,
  status: Schema.optional(Schema.NullOr(Schema.String)),
  incomplete_details: Schema.optional(Schema.NullOr(Schema.Struct({ reason: Schema.optional(Schema.String) }))),
  output: Schema.Array(Schema.Struct({
    type: Schema.String,
    content: Schema.optional(Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })))
  }))
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

/** The model `options.model` of the OpenAI endpoint, over `http`. */
export const make = (http: HttpClient.HttpClient, options: ModelOptions): Effect.Effect<LanguageModel.LanguageModel> =>
  providerModel(http, {
    endpoint: {
      module: MODULE,
      url: `${options.baseUrl}/responses`,
      headers: { authorization: `Bearer ${Redacted.value(options.apiKey)}` }
    },
    request: (messages, format) => ({
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
    }),
    answer: ResponseBody,
    read: (answer) => {
      const texts: Array<string> = []
      for (const item of answer.output) {
        if (item.type !== "message") continue
        for (const content of item.content ?? []) {
          if (content.type === "output_text" && content.text !== undefined) texts.push(content.text)
        }
      }
      return { texts, reason: finishReason(answer) }
    },
    codecTransformer: OpenAiStructuredOutput.toCodecOpenAI
  })
