/** Rate limits per token (D52): IETF headers on every answer, 429 RATE_LIMITED with Retry-After, refill by Clock. */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { raw, tenant, testServer } from "./Harness.js"

layer(testServer("rate-limits-default"), { excludeTestServices: true })("rate limit headers", (it) => {
  it.effect("every answer carries RateLimit-Policy and RateLimit, 401 and 404 included (defaults 100/s, 200)", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const first = yield* raw("GET", "/v1/companies", { token })
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.headers.get("ratelimit-policy"), `"default";q=200;w=2`)
      assert.match(first.headers.get("ratelimit") ?? "", /^"default";r=199;t=\d+$/)
      const second = yield* raw("GET", "/v1/companies", { token })
      assert.match(second.headers.get("ratelimit") ?? "", /^"default";r=19[89];t=\d+$/)
      for (
        const [path, status, auth] of [["/v1/nope", 404, token], ["/v1/companies", 401, "bad|token"]] as const
      ) {
        const response = yield* raw("GET", path, { token: auth })
        assert.strictEqual(response.status, status)
        assert.isNotNull(response.headers.get("ratelimit"), path)
        assert.isNotNull(response.headers.get("ratelimit-policy"), path)
      }
    }))
})
