/**
 * The address clients reach the API at: pagination links and `meta.path` are built on it, never on the
 * `Host` header, which any client can set (a spoofed `Host` would otherwise put the attacker's origin into links that
 * other code follows, and into cached answers).
 */
import { Config, Context, Effect, Layer, Option } from "effect"
import { HttpServer } from "effect/http"
import { validated } from "./HttpConfig.js"

/**
 * The public base URL, for example `https://support.example.com` or `https://example.com/support` (a path
 * prefix is kept). None (the default, for handlers mounted in another framework's server) builds links on the
 * request's own URL as that framework gives it.
 */
export class PublicUrl extends Context.Reference<Option.Option<URL>>("@support-engine/http/PublicUrl", {
  defaultValue: (): Option.Option<URL> => Option.none()
}) {
  /**
   * `SUPPORT_PUBLIC_URL`, an absolute http(s) URL; without it, the address the server listens on, as
   * `http://127.0.0.1:8080`.
   */
  static readonly fromEnv: Layer.Layer<never, Config.ConfigError, HttpServer.HttpServer> = Layer.effect(
    PublicUrl,
    Effect.gen(function*() {
      const configured = yield* Config.option(
        validated(
          Config.URL("SUPPORT_PUBLIC_URL"),
          "SUPPORT_PUBLIC_URL",
          "must be an absolute http or https URL without query or fragment",
          (url) => (url.protocol === "http:" || url.protocol === "https:") && url.search === "" && url.hash === ""
        )
      )
      if (Option.isSome(configured)) return configured
      return Option.some(new URL(yield* HttpServer.addressFormattedWith(Effect.succeed)))
    })
  )
}

/** The absolute URL of a request target (`/v1/customers?page=2`) under the public base URL. */
export const underPublicUrl = (base: URL, target: string): URL =>
  new URL(`${base.origin}${base.pathname.replace(/\/$/, "")}${target}`)
