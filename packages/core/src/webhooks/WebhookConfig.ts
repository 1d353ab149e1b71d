/**
 * Webhook configuration: the retry base, the attempt timeout, whether private targets are allowed,
 * how many webhooks a workspace may have, and the dispatcher's limits. `fromEnv` reads the environment with Effect `Config`; `layer` is for tests and hosts.
 */
import { Config, Context, Duration, Effect, Layer, Schema, type SchemaAST } from "effect"

export interface WebhookSettings {
  /** Attempt n+1 is due `retryBase · 2^(n-1)` after attempt n failed. */
  readonly retryBase: Duration.Duration
  /** One attempt's time limit, connection included. */
  readonly timeout: Duration.Duration
  /** Allow http and loopback, private, link-local and unspecified targets. For development only. */
  readonly allowPrivate: boolean
  /** Attempts in flight at once, per dispatcher (per process). */
  readonly concurrency: number
  /**
   * Attempts in flight at once for one webhook, across every dispatcher sharing the database: a slow or silent
   * receiver holds at most this many slots.
   */
  readonly maxInFlightPerWebhook: number
  /** Attempts in flight at once for one workspace's webhooks together, across every dispatcher. */
  readonly maxInFlightPerWorkspace: number
  /** Webhooks one workspace may have; creating one more is refused until one is deleted. */
  readonly maxPerWorkspace: number
  /** Attempts per delivery before it has failed. */
  readonly maxAttempts: number
  /** Consecutive failed deliveries that deactivate a webhook. */
  readonly deactivateAfter: number
  /** The longest a dispatcher sleeps without looking for work other processes wrote. */
  readonly pollInterval: Duration.Duration
  /** Added to the timeout to make a claim's lease; at most 30 seconds. */
  readonly leaseMargin: Duration.Duration
}

export const defaults: WebhookSettings = {
  retryBase: Duration.minutes(1),
  timeout: Duration.seconds(10),
  allowPrivate: false,
  concurrency: 64,
  maxInFlightPerWebhook: 16,
  maxInFlightPerWorkspace: 32,
  maxPerWorkspace: 20,
  maxAttempts: 10,
  deactivateAfter: 5,
  pollInterval: Duration.seconds(1),
  leaseMargin: Duration.seconds(5)
}

const MAX_LEASE_MARGIN = Duration.seconds(30)
/** A fan-out numbers an event's deliveries in 16 bits of their ids (SqlFanOut), so a workspace stays below this. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 10_000

export class WebhookConfig extends Context.Service<WebhookConfig, WebhookSettings>()(
  "@support-engine/core/WebhookConfig"
) {
  /** Settings given in code; anything left out takes its default. */
  static layer(settings: Partial<WebhookSettings> = {}): Layer.Layer<WebhookConfig> {
    const merged = { ...defaults, ...settings }
    return Layer.succeed(WebhookConfig, {
      ...merged,
      leaseMargin: Duration.min(merged.leaseMargin, MAX_LEASE_MARGIN)
    })
  }

  /**
   * Settings from the environment: `SUPPORT_WEBHOOK_RETRY_BASE_MS`, `SUPPORT_WEBHOOK_TIMEOUT_MS`,
   * `SUPPORT_WEBHOOK_ALLOW_PRIVATE`, `SUPPORT_WEBHOOK_CONCURRENCY`, `SUPPORT_WEBHOOK_MAX_ATTEMPTS`,
   * `SUPPORT_WEBHOOK_DEACTIVATE_AFTER`, `SUPPORT_WEBHOOK_POLL_INTERVAL_MS`, `SUPPORT_WEBHOOK_MAX_PER_WORKSPACE`,
   * `SUPPORT_WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK`, `SUPPORT_WEBHOOK_MAX_IN_FLIGHT_PER_WORKSPACE`.
   */
  static readonly fromEnv: Layer.Layer<WebhookConfig, Config.ConfigError> = Layer.unwrap(
    Effect.gen(function*() {
      const positive = (name: string, fallback: number, ...checks: ReadonlyArray<SchemaAST.Filter<number>>) =>
        Config.schema(
          Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "must be a positive integer" }), ...checks),
          name
        ).pipe(Config.withDefault(fallback))
      const millis = (name: string, fallback: Duration.Duration) =>
        Effect.map(positive(name, Duration.toMillis(fallback)), Duration.millis)
      return WebhookConfig.layer({
        retryBase: yield* millis("SUPPORT_WEBHOOK_RETRY_BASE_MS", defaults.retryBase),
        timeout: yield* millis("SUPPORT_WEBHOOK_TIMEOUT_MS", defaults.timeout),
        allowPrivate: yield* Config.Boolean("SUPPORT_WEBHOOK_ALLOW_PRIVATE").pipe(
          Config.withDefault(defaults.allowPrivate)
        ),
        concurrency: yield* positive("SUPPORT_WEBHOOK_CONCURRENCY", defaults.concurrency),
        maxInFlightPerWebhook: yield* positive(
          "SUPPORT_WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK",
          defaults.maxInFlightPerWebhook
        ),
        maxInFlightPerWorkspace: yield* positive(
          "SUPPORT_WEBHOOK_MAX_IN_FLIGHT_PER_WORKSPACE",
          defaults.maxInFlightPerWorkspace
        ),
        maxPerWorkspace: yield* positive(
          "SUPPORT_WEBHOOK_MAX_PER_WORKSPACE",
          defaults.maxPerWorkspace,
          Schema.isLessThanOrEqualTo(MAX_WEBHOOKS_PER_WORKSPACE, {
            message: `must be at most ${MAX_WEBHOOKS_PER_WORKSPACE}`
          })
        ),
        maxAttempts: yield* positive("SUPPORT_WEBHOOK_MAX_ATTEMPTS", defaults.maxAttempts),
        deactivateAfter: yield* positive("SUPPORT_WEBHOOK_DEACTIVATE_AFTER", defaults.deactivateAfter),
        pollInterval: yield* millis("SUPPORT_WEBHOOK_POLL_INTERVAL_MS", defaults.pollInterval)
      })
    })
  )
}
