/** Settings of the HTTP face. */
import { Config, ConfigProvider, Context, Effect, Layer } from "effect"

/** 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576

export interface HttpSettings {
  readonly maxBodyBytes: number
}

/**
 * `config` refused with `message` unless `valid` holds; the message names `name`, the environment variable, as a
 * host reading the error at start needs.
 */
export const validated = <A>(
  config: Config.Config<A>,
  name: string,
  message: string,
  valid: (value: A) => boolean
): Config.Config<A> =>
  Config.mapEffect(config, (value) =>
    valid(value)
      ? Effect.succeed(value)
      : Effect.fail(new Config.ConfigError(new ConfigProvider.SourceError({ message: `${name} ${message}` }))))

/** Settings of the HTTP face; the default applies when none is provided. */
export class HttpConfig extends Context.Reference<HttpSettings>("@support-engine/http/HttpConfig", {
  defaultValue: () => ({ maxBodyBytes: DEFAULT_MAX_BODY_BYTES })
}) {
  /** From the environment: `SUPPORT_MAX_BODY_BYTES`. */
  static readonly fromEnv: Layer.Layer<never, Config.ConfigError> = Layer.effect(
    HttpConfig,
    validated(
      Config.Int("SUPPORT_MAX_BODY_BYTES").pipe(Config.withDefault(DEFAULT_MAX_BODY_BYTES)),
      "SUPPORT_MAX_BODY_BYTES",
      "must be a positive integer",
      (n) => n > 0
    ).pipe(Effect.map((maxBodyBytes) => ({ maxBodyBytes })))
  )
}
