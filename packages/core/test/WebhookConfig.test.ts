/** Webhook settings from the environment (D41). */
import { assert, describe, it } from "@effect/vitest"
import { WebhookConfig } from "@support-engine/core"
import { ConfigProvider, Duration, Effect, Layer } from "effect"

const fromEnv = (env: Record<string, string>) =>
  Effect.provide(
    WebhookConfig,
    WebhookConfig.fromEnv.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))),
    // Each call builds the settings from its own environment, not a memoised earlier one.
    { local: true }
  )

describe("WebhookConfig (D41)", () => {
  it.effect("defaults: 1 minute base, 10 s timeout, private targets refused, 64 at once (16 per webhook, 32 per workspace), 10 attempts, 5 failures, 20 webhooks per workspace (D50)", () =>
    Effect.gen(function*() {
      const settings = yield* fromEnv({})
      assert.deepStrictEqual(settings, {
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
      })
    }))

  it.effect("reads every SUPPORT_WEBHOOK_* variable", () =>
    Effect.gen(function*() {
      const settings = yield* fromEnv({
        SUPPORT_WEBHOOK_RETRY_BASE_MS: "200",
        SUPPORT_WEBHOOK_TIMEOUT_MS: "1500",
        SUPPORT_WEBHOOK_ALLOW_PRIVATE: "true",
        SUPPORT_WEBHOOK_CONCURRENCY: "4",
        SUPPORT_WEBHOOK_MAX_ATTEMPTS: "3",
        SUPPORT_WEBHOOK_DEACTIVATE_AFTER: "2",
        SUPPORT_WEBHOOK_POLL_INTERVAL_MS: "250",
        SUPPORT_WEBHOOK_MAX_PER_WORKSPACE: "3",
        SUPPORT_WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK: "2",
        SUPPORT_WEBHOOK_MAX_IN_FLIGHT_PER_WORKSPACE: "5"
      })
      assert.deepInclude(settings, {
        allowPrivate: true,
        concurrency: 4,
        maxPerWorkspace: 3,
        maxInFlightPerWebhook: 2,
        maxInFlightPerWorkspace: 5,
        maxAttempts: 3,
        deactivateAfter: 2
      })
      assert.strictEqual(Duration.toMillis(settings.retryBase), 200)
      assert.strictEqual(Duration.toMillis(settings.timeout), 1500)
      assert.strictEqual(Duration.toMillis(settings.pollInterval), 250)
    }))

  it.effect("refuses values that are not positive integers or booleans", () =>
    Effect.gen(function*() {
      for (
        const env of [
          { SUPPORT_WEBHOOK_RETRY_BASE_MS: "soon" },
          { SUPPORT_WEBHOOK_TIMEOUT_MS: "0" },
          { SUPPORT_WEBHOOK_CONCURRENCY: "-1" },
          { SUPPORT_WEBHOOK_ALLOW_PRIVATE: "maybe" },
          { SUPPORT_WEBHOOK_MAX_PER_WORKSPACE: "0" },
          { SUPPORT_WEBHOOK_MAX_PER_WORKSPACE: "10001" },
          { SUPPORT_WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK: "none" }
        ]
      ) {
        const error = yield* Effect.flip(fromEnv(env))
        // Invalid data (a value the schema refuses), not a source that could not be read.
        assert.strictEqual(error.cause._tag, "SchemaError", JSON.stringify(env))
      }
    }))

  it("a lease margin is at most 30 seconds (D38)", () => {
    const settings = Effect.runSync(
      Effect.provide(WebhookConfig, WebhookConfig.layer({ leaseMargin: Duration.minutes(5) }))
    )
    assert.deepStrictEqual(settings.leaseMargin, Duration.seconds(30))
  })
})
