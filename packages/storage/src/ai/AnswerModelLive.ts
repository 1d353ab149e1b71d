/**
 * The model AI agents answer with, as `SUPPORT_AI_PROVIDER` names it (D53): `local` (the default, offline), `openai`
 * (`@effect/ai-openai`, the Responses API) or `anthropic` (`@effect/ai-anthropic`, the Messages API). The agent's
 * `model` names the provider's model. Keys and base URLs: `SUPPORT_OPENAI_API_KEY`, `SUPPORT_OPENAI_BASE_URL`,
 * `SUPPORT_ANTHROPIC_API_KEY`, `SUPPORT_ANTHROPIC_BASE_URL`, read as `Redacted`.
 *
 * A remote provider's modules are imported only when it is chosen, as the PostgreSQL client is (Storage.ts): they
 * and the fetch client cost start time that a `local` engine does not pay.
 */
import { AnswerModel, LocalAnswerModel } from "@support-engine/core"
import { Config, ConfigError, Effect, Either, Layer, Option, type Redacted } from "effect"

/** The provider's model when a classification has no agent: the providers' small, cheap models. */
const DEFAULT_MODELS = { openai: "gpt-4o-mini", anthropic: "claude-3-5-haiku-latest" } as const

const baseUrl = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Config.mapOrFail(Option.match({
      onNone: () => Either.right(undefined),
      onSome: (text) => {
        const url = URL.canParse(text) ? new URL(text) : undefined
        return url !== undefined && (url.protocol === "https:" || url.protocol === "http:") && url.search === ""
          ? Either.right(text.replace(/\/+$/, ""))
          : Either.left(ConfigError.InvalidData([name], "must be an absolute http(s) URL without a query"))
      }
    }))
  )

const apiKey = (name: string, provider: string): Config.Config<Redacted.Redacted> =>
  Config.option(Config.redacted(name)).pipe(
    Config.mapOrFail(Option.match({
      onNone: () => Either.left(ConfigError.MissingData([name], `required when SUPPORT_AI_PROVIDER is ${provider}`)),
      onSome: Either.right
    }))
  )

/** The OpenAI model source: `POST {base}/responses`, the base URL ending in `/v1` (the default's does). */
const openAi = (key: Redacted.Redacted, url: string | undefined) =>
  Effect.promise(() =>
    Promise.all([
      import("@effect/ai-openai"),
      import("@effect/platform"),
      import("@support-engine/core/LanguageModelAnswers")
    ])
  ).pipe(
    Effect.map(([{ OpenAiClient, OpenAiLanguageModel }, { FetchHttpClient, HttpClient }, { languageModelAnswers }]) =>
      Layer.effect(
        AnswerModel,
        Effect.map(OpenAiClient.OpenAiClient, (client) =>
          languageModelAnswers({
            provider: "openai",
            defaultModel: DEFAULT_MODELS.openai,
            languageModel: (model) =>
              OpenAiLanguageModel.make({ model }).pipe(Effect.provideService(OpenAiClient.OpenAiClient, client))
          }))
      ).pipe(
        Layer.provide(OpenAiClient.layer({
          apiKey: key,
          apiUrl: url,
          // No trace headers to a third party: they would tell it about the engine's own spans.
          transformClient: (http) => HttpClient.withTracerPropagation(http, false)
        })),
        Layer.provide(FetchHttpClient.layer)
      )
    )
  )

/** The Anthropic model source: `POST {base}/v1/messages` (the base URL without `/v1`), `x-api-key`. */
const anthropic = (key: Redacted.Redacted, url: string | undefined) =>
  Effect.promise(() =>
    Promise.all([
      import("@effect/ai-anthropic"),
      import("@effect/platform"),
      import("@support-engine/core/LanguageModelAnswers")
    ])
  ).pipe(
    Effect.map((
      [{ AnthropicClient, AnthropicLanguageModel }, { FetchHttpClient, HttpClient }, { languageModelAnswers }]
    ) =>
      Layer.effect(
        AnswerModel,
        Effect.map(AnthropicClient.AnthropicClient, (client) =>
          languageModelAnswers({
            provider: "anthropic",
            defaultModel: DEFAULT_MODELS.anthropic,
            languageModel: (model) =>
              AnthropicLanguageModel.make({ model }).pipe(
                Effect.provideService(AnthropicClient.AnthropicClient, client)
              )
          }))
      ).pipe(
        Layer.provide(AnthropicClient.layer({
          apiKey: key,
          apiUrl: url,
          transformClient: (http) => HttpClient.withTracerPropagation(http, false)
        })),
        Layer.provide(FetchHttpClient.layer)
      )
    )
  )

/**
 * The `AnswerModel` of `SUPPORT_AI_PROVIDER`. A remote provider without its key fails to build with a
 * `ConfigError` naming the variable, so the engine does not start rather than hand every conversation off.
 */
export const AnswerModelLive: Layer.Layer<AnswerModel, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.gen(function*() {
    const provider = yield* Config.literal("local", "openai", "anthropic")("SUPPORT_AI_PROVIDER").pipe(
      Config.withDefault("local" as const)
    )
    switch (provider) {
      case "local":
        return LocalAnswerModel
      case "openai":
        return yield* openAi(
          yield* apiKey("SUPPORT_OPENAI_API_KEY", provider),
          yield* baseUrl("SUPPORT_OPENAI_BASE_URL")
        )
      case "anthropic":
        return yield* anthropic(
          yield* apiKey("SUPPORT_ANTHROPIC_API_KEY", provider),
          yield* baseUrl("SUPPORT_ANTHROPIC_BASE_URL")
        )
    }
  })
)
