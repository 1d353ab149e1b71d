/** Settings of the HTTP face (D7, D41). */
import { Config, type ConfigError, Context, Effect, Layer } from "effect"

/** 1 MiB (D7). */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576

/** Settings of the HTTP face; the default applies when none is provided. */
export class HttpConfig extends Context.Reference<HttpConfig>()("@support-engine/http/HttpConfig", {
  defaultValue: () => ({ maxBodyBytes: DEFAULT_MAX_BODY_BYTES })
}) {
  /** From the environment: `SUPPORT_MAX_BODY_BYTES` (D41). */
  static readonly fromEnv: Layer.Layer<HttpConfig, ConfigError.ConfigError> = Layer.effect(
    HttpConfig,
    Config.integer("SUPPORT_MAX_BODY_BYTES").pipe(
      Config.withDefault(DEFAULT_MAX_BODY_BYTES),
      Config.validate({ message: "must be a positive integer", validation: (n) => n > 0 }),
      Effect.map((maxBodyBytes) => ({ maxBodyBytes }))
    )
  )
}
