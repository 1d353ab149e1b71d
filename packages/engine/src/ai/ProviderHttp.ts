/**
 * What the remote model providers (OpenAiModel.ts, AnthropicModel.ts) share: the model itself (`providerModel`),
 * one JSON `POST` over `effect/http`'s `HttpClient`, the prompt read as plain text messages, and the provider's
 * failures as `AiError`s that carry nothing of the request or the body.
 *
 * No trace headers go to a third party: they would tell it about the engine's own spans. A failure keeps only
 * the method, the URL (the configured base URL, which takes no query) and the HTTP status: the request holds the
 * key in a header, and a provider's error body may echo it (OpenAI's 401 does).
 */
import { Effect, type Redacted, Schema, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response } from "effect/ai"
import { HttpClient, HttpClientRequest } from "effect/http"

/** Which model of a provider, where, with which key. */
export interface ModelOptions {
  readonly apiKey: Redacted.Redacted
  /** Without a trailing slash. */
  readonly baseUrl: string
  readonly model: string
}

/** One provider endpoint: which module reports its failures, where it is, and the headers it wants. */
export interface Endpoint {
  readonly module: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
}

const failure = (module: string, method: string, reason: AiError.AiErrorReason): AiError.AiError =>
  AiError.make({ module, method, reason })

/** The prompt cannot be sent with a text-only request: a file, a tool call or a tool result. */
export const unsupported = (module: string, what: string): AiError.AiError =>
  failure(module, "generateText", new AiError.InvalidUserInputError({ description: `${what} are not supported` }))

/** A response body that does not have the shape the provider documents. */
export const invalidOutput = (module: string, description: string): AiError.AiError =>
  failure(module, "generateText", new AiError.InvalidOutputError({ description }))

/**
 * `POST`s `body` as JSON and decodes a 2xx answer with `schema`. A non-2xx status fails with the reason for that
 * status (authentication, rate limit, server error...), without the body.
 */
const postJson = <A>(
  http: HttpClient.HttpClient,
  endpoint: Endpoint,
  body: unknown,
  schema: Schema.Codec<A, unknown>
): Effect.Effect<A, AiError.AiError> => {
  const { module, url } = endpoint
  const request = HttpClientRequest.post(url).pipe(
    HttpClientRequest.setHeaders(endpoint.headers),
    HttpClientRequest.acceptJson,
    HttpClientRequest.bodyJsonUnsafe(body)
  )
  const decode = Schema.decodeUnknownEffect(schema)
  return http.execute(request).pipe(
    Effect.provideService(HttpClient.TracerPropagationEnabled, false),
    Effect.catchTag("HttpClientError", (error) =>
      Effect.fail(
        failure(
          module,
          "generateText",
          new AiError.NetworkError({
            reason: error.reason._tag === "EncodeError" || error.reason._tag === "InvalidUrlError"
              ? error.reason._tag
              : "TransportError",
            method: "POST",
            url
          })
        )
      )),
    Effect.flatMap((response) => {
      if (response.status < 200 || response.status >= 300) {
        const reason = AiError.reasonFromHttpStatus({
          status: response.status,
          http: { response: { status: response.status, headers: {} } }
        })
        // The body is read and dropped so that the connection can be reused; what it says is not kept.
        return Effect.andThen(Effect.ignore(response.text), Effect.fail(failure(module, "generateText", reason)))
      }
      return response.json.pipe(
        Effect.catchTag("HttpClientError", () => Effect.fail(invalidOutput(module, "the answer is not JSON"))),
        Effect.flatMap((json) =>
          Effect.mapError(decode(json), () => invalidOutput(module, "the answer does not have the documented shape"))
        )
      )
    })
  )
}

/** A message of the prompt as text: the system instruction, or a turn of the conversation. */
export interface TextMessage {
  readonly role: "system" | "user" | "assistant"
  readonly text: string
}

/** The prompt as text messages; files, tool calls and tool results fail (the engine sends none). */
const textMessages = (
  module: string,
  prompt: Prompt.Prompt
): Effect.Effect<ReadonlyArray<TextMessage>, AiError.AiError> =>
  Effect.suspend(() => {
    const messages: Array<TextMessage> = []
    for (const message of prompt.content) {
      switch (message.role) {
        case "system":
          messages.push({ role: "system", text: message.content })
          break
        case "user":
        case "assistant": {
          const texts: Array<string> = []
          for (const part of message.content) {
            if (part.type === "text") texts.push(part.text)
            else if (part.type === "file") return Effect.fail(unsupported(module, "files"))
            else if (part.type === "tool-call" || part.type === "tool-result") {
              return Effect.fail(unsupported(module, "tool calls"))
            }
            // Reasoning and approval requests are the model's own bookkeeping: not sent back.
          }
          messages.push({ role: message.role, text: texts.join("") })
          break
        }
        case "tool":
          return Effect.fail(unsupported(module, "tool results"))
      }
    }
    return Effect.succeed(messages)
  })

/** Fails when the request asks for tools: the engine uses none, so they are not written out. */
const noTools = (module: string, options: LanguageModel.ProviderOptions): Effect.Effect<void, AiError.AiError> =>
  options.tools.length === 0 ? Effect.void : Effect.fail(unsupported(module, "tools"))

/**
 * The streamed form of a complete answer, for `streamText`: each text part as one delta, then the rest as it is.
 * The engine never streams; the providers are asked for the whole answer either way.
 */
const asStream = (
  parts: Effect.Effect<Array<Response.PartEncoded>, AiError.AiError>
): Stream.Stream<Response.StreamPartEncoded, AiError.AiError> =>
  Stream.fromIterableEffect(Effect.map(parts, (all) =>
    all.flatMap((part, i): Array<Response.StreamPartEncoded> => {
      switch (part.type) {
        case "text": {
          const id = String(i)
          return [{ type: "text-start", id }, { type: "text-delta", id, delta: part.text }, { type: "text-end", id }]
        }
        case "finish":
        case "response-metadata":
          return [part]
        default:
          return []
      }
    })))

/** The fields of an answer that both providers name alike: its id, the model that wrote it, and the token counts. */
export const answerFields = {
  id: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  usage: Schema.optional(Schema.NullOr(Schema.Struct({
    input_tokens: Schema.optional(Schema.Number),
    output_tokens: Schema.optional(Schema.Number)
  })))
}

type Answer = Schema.Struct.Type<typeof answerFields>

type ResponseFormat = LanguageModel.ProviderOptions["responseFormat"]

/** What sets one provider apart: its endpoint, the request it takes and how its answer reads. */
export interface Provider<A extends Answer> {
  readonly endpoint: Endpoint
  /** The request body for the prompt's messages, asking for `format`. */
  readonly request: (messages: ReadonlyArray<TextMessage>, format: ResponseFormat) => unknown
  /** The answer's shape, built on `answerFields`. */
  readonly answer: Schema.Codec<A, unknown>
  /** The answer's texts, in order, and why it stopped. */
  readonly read: (
    answer: A,
    format: ResponseFormat
  ) => { readonly texts: ReadonlyArray<string>; readonly reason: Response.FinishReason }
  readonly codecTransformer: LanguageModel.CodecTransformer
}

/**
 * A provider's model as an `effect/ai` `LanguageModel`: the prompt sent as text messages in one request, the
 * answer given back as its metadata, its texts and the finish with the token counts.
 */
export const providerModel = <A extends Answer>(
  http: HttpClient.HttpClient,
  provider: Provider<A>
): Effect.Effect<LanguageModel.LanguageModel> => {
  const { endpoint } = provider
  const generateText = (options: LanguageModel.ProviderOptions) =>
    Effect.gen(function*() {
      yield* noTools(endpoint.module, options)
      const messages = yield* textMessages(endpoint.module, options.prompt)
      const format = options.responseFormat
      const answer = yield* postJson(http, endpoint, provider.request(messages, format), provider.answer)
      const { reason, texts } = provider.read(answer, format)
      const parts: Array<Response.PartEncoded> = [
        { type: "response-metadata", id: answer.id, modelId: answer.model },
        ...texts.map((text): Response.PartEncoded => ({ type: "text", text })),
        {
          type: "finish",
          reason,
          usage: {
            inputTokens: { total: answer.usage?.input_tokens },
            outputTokens: { total: answer.usage?.output_tokens }
          }
        }
      ]
      return parts
    })
  return LanguageModel.make({
    generateText,
    streamText: (options) => asStream(generateText(options)),
    codecTransformer: provider.codecTransformer
  })
}
