/**
 * Rate limits under TestClock (D52): a spent bucket answers 429 RATE_LIMITED with Retry-After and refills at the
 * configured rate by Effect's Clock; 0 turns limiting off. Separate from RateLimits.test.ts, whose shared
 * `layer(...)` runs without test services.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { engineLayer, envelope, raw, serverLayer, tenant } from "./Harness.js"

describe("rate limits under TestClock", () => {
  it.effect("a spent bucket is 429 RATE_LIMITED with Retry-After; it refills at the rate; tokens are apart", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(
        serverLayer(engineLayer("rate-limits-clock"), { rateLimits: { perSecond: 0.5, burst: 3 } })
      )
      const inServer = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, context)
      const get = (token: string) => inServer(raw("GET", "/v1/companies", { token }))
      const { token } = yield* inServer(tenant())
      const other = yield* inServer(tenant())
      const statuses = []
      for (let i = 0; i < 3; i++) statuses.push((yield* get(token)).status)
      assert.deepStrictEqual(statuses, [200, 200, 200])
      const limited = yield* inServer(raw("POST", "/v1/companies", { token, json: { name: "never written" } }))
      assert.strictEqual(limited.status, 429)
      assert.deepStrictEqual(limited.body, envelope("Too many requests; retry after 2 seconds.", "RATE_LIMITED"))
      assert.strictEqual(limited.headers.get("retry-after"), "2")
      assert.strictEqual(limited.headers.get("ratelimit"), `"default";r=0;t=6`)
      assert.strictEqual(limited.headers.get("ratelimit-policy"), `"default";q=3;w=6`)
      // Another token has its own bucket.
      assert.strictEqual((yield* get(other.token)).status, 200)

      yield* TestClock.adjust(Duration.seconds(1))
      assert.strictEqual((yield* get(token)).status, 429)
      yield* TestClock.adjust(Duration.seconds(1))
      const again = yield* get(token)
      assert.strictEqual(again.status, 200)
      // The refused POST wrote nothing.
      assert.deepStrictEqual((again.body as { data: Array<unknown> }).data, [])
    }))

  it.effect("0 turns limiting off: no 429 and no headers", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(
        serverLayer(engineLayer("rate-limits-off"), { rateLimits: { perSecond: 0, burst: 200 } })
      )
      yield* Effect.gen(function*() {
        const { token } = yield* tenant()
        for (let i = 0; i < 5; i++) {
          const response = yield* raw("GET", "/v1/companies", { token })
          assert.strictEqual(response.status, 200)
          assert.isNull(response.headers.get("ratelimit"))
        }
      }).pipe(Effect.provide(context))
    }))
})
