/**
 * The model AI agents answer with, as `SUPPORT_AI_PROVIDER` names it: `local` (the default, offline), `openai`
 * (the Responses API, OpenAiModel.ts) or `anthropic` (the Messages API, AnthropicModel.ts), each an `effect/ai`
 * `LanguageModel` over `effect/http`'s fetch client. The agent's `model` names the provider's model. Keys and base
 * URLs: `SUPPORT_OPENAI_API_KEY`, `SUPPORT_OPENAI_BASE_URL`, `SUPPORT_ANTHROPIC_API_KEY`,
 * `SUPPORT_ANTHROPIC_BASE_URL`, read as `Redacted`.
 *
 * A remote provider's modules are imported only when it is chosen, as the PostgreSQL client is (storage's
 * Storage.ts): they and the fetch client cost start time that a `local` engine does not pay.
 */
import { AnswerModel, LocalAnswerModel } from "@support-engine/core"
import { Config, Effect, Layer, Option, type Redacted, Schema, SchemaIssue } from "effect"

/** The provider's model when a classification has no agent: the providers' small, cheap models. */
const DEFAULT_MODELS = { openai: "gpt-4o-mini", anthropic: "claude-3-5-haiku-latest" } as const

/** A configuration error about the variable `name`, which names it. */
const invalid = (name: string, message: string) =>
  new Config.ConfigError(
    new Schema.SchemaError(new SchemaIssue.Pointer([name], new SchemaIssue.InvalidValue({ message })))
  )

const baseUrl = (name: string): Config.Config<string | undefined> =>
  Config.option(Config.String(name)).pipe(
    Config.mapEffect(Option.match({
      onNone: () => Effect.succeed(undefined),
      onSome: (text) => {
        const url = URL.canParse(text) ? new URL(text) : undefined
        return url !== undefined && (url.protocol === "https:" || url.protocol === "http:") && url.search === ""
          ? Effect.succeed(text.replace(/\/+$/, ""))
          : Effect.fail(invalid(name, "must be an absolute http(s) URL without a query"))
      }
    }))
  )

const apiKey = (name: string, provider: string): Config.Config<Redacted.Redacted> =>
  Config.option(Config.Redacted(name)).pipe(
    Config.mapEffect(Option.match({
      onNone: () => Effect.fail(invalid(name, `required when SUPPORT_AI_PROVIDER is ${provider}`)),
      onSome: Effect.succeed
    }))
  )

/** The OpenAI model source: `POST {base}/responses`, the base URL ending in `/v1` (the default's does). */
const openAi = (key: Redacted.Redacted, url: string | undefined) =>
  Effect.promise(() =>
    Promise.all([
      import("./OpenAiModel.js"),
      import("effect/http"),
      import("@support-engine/core/LanguageModelAnswers")
    ])
  ).pipe(
    Effect.map(([OpenAi, { FetchHttpClient, HttpClient }, { languageModelAnswers }]) =>
      Layer.effect(
        AnswerModel,
        Effect.map(HttpClient.HttpClient, (http) =>
          languageModelAnswers({
            provider: "openai",
            defaultModel: DEFAULT_MODELS.openai,
            languageModel: (model) => OpenAi.make(http, { apiKey: key, baseUrl: url ?? OpenAi.OPENAI_BASE_URL, model })
          }))
      ).pipe(Layer.provide(FetchHttpClient.layer))
    )
  )

/** The Anthropic model source: `POST {base}/v1/messages` (the base URL without `/v1`), `x-api-key`. */
const anthropic = (key: Redacted.Redacted, url: string | undefined) =>
  Effect.promise(() =>
    Promise.all([
      import("./AnthropicModel.js"),
      import("effect/http"),
      import("@support-engine/core/LanguageModelAnswers")
    ])
  ).pipe(
    Effect.map(([Anthropic, { FetchHttpClient, HttpClient }, { languageModelAnswers }]) =>
      Layer.effect(
        AnswerModel,
        Effect.map(HttpClient.HttpClient, (http) =>
          languageModelAnswers({
            provider: "anthropic",
            defaultModel: DEFAULT_MODELS.anthropic,
            languageModel: (model) =>
              Anthropic.make(http, { apiKey: key, baseUrl: url ?? Anthropic.ANTHROPIC_BASE_URL, model })
          }))
      ).pipe(Layer.provide(FetchHttpClient.layer))
    )
  )

/**
 * The `AnswerModel` of `SUPPORT_AI_PROVIDER`. A remote provider without its key fails to build with a
 * `ConfigError` naming the variable, so the engine does not start rather than hand every conversation off.
 */
export const AnswerModelLive: Layer.Layer<AnswerModel, Config.ConfigError> = Layer.unwrap(
  Effect.gen(function*() {
    const provider = yield* Config.Literals(["local", "openai", "anthropic"], "SUPPORT_AI_PROVIDER").pipe(
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
