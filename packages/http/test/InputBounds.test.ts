/**
 * Bad inputs over HTTP (D48, D49): deep JSON is 400 MALFORMED_JSON, query numbers are decimal digits within their
 * bounds, date-times are RFC 3339 with a zone, arrays and strings over their bound are a 422 naming the field; never
 * a 5xx.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { raw, tenant, testServer } from "./Harness.js"

const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth)

layer(testServer("input-bounds"), { excludeTestServices: true })("input bounds (D48, D49)", (it) => {
  it.effect("a body nested deeper than 64 levels is 400 MALFORMED_JSON; 64 levels reach validation", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const headers = { "content-type": "application/json" }
      const deep = `{"name":"x","tags":${nested(64)}}`
      const tooDeep = yield* raw("POST", "/v1/companies", { token, headers, body: deep })
      assert.strictEqual(tooDeep.status, 400)
      assert.strictEqual((tooDeep.body as { code: string }).code, "MALFORMED_JSON")
      const veryDeep = yield* raw("POST", "/v1/companies", { token, headers, body: nested(100_000) })
      assert.strictEqual(veryDeep.status, 400)
      const atBound = yield* raw("POST", "/v1/conversations", { token, headers, body: `{"tags":${nested(63)}}` })
      assert.strictEqual(atBound.status, 422)
    }))

  it.effect("query numbers: decimal digits only, page 1..1,000,000, per_page 1..100 (422 naming the field)", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      for (
        const [query, field] of [
          ["page=1e15", "page"],
          ["page=0x10", "page"],
          ["page=1e1", "page"],
          ["page=%2B5", "page"],
          ["page=5.0", "page"],
          ["page=1000001", "page"],
          ["page=0", "page"],
          ["per_page=101", "per_page"],
          ["per_page=1e1", "per_page"],
          ["per_page=", "per_page"]
        ] as const
      ) {
        const response = yield* raw("GET", `/v1/customers?${query}`, { token })
        assert.strictEqual(response.status, 422, query)
        assert.deepStrictEqual(Object.keys((response.body as { errors: object }).errors), [field], query)
      }
      const last = yield* raw("GET", "/v1/customers?page=1000000&per_page=100", { token })
      assert.strictEqual(last.status, 200)
    }))

  it.effect("date-times: RFC 3339 with a zone; 'Jan 2 2026' or a zone-less time is a 422 naming the field", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      for (const value of ["Jan 2 2026", "2026-01-02T03:04:05", "2026-02-30T00:00:00Z", "2026-01-02"]) {
        const response = yield* raw("GET", `/v1/customers?updated_since=${encodeURIComponent(value)}`, { token })
        assert.strictEqual(response.status, 422, value)
        assert.deepStrictEqual(Object.keys((response.body as { errors: object }).errors), ["updated_since"], value)
      }
      const zoned = yield* raw(
        "GET",
        `/v1/customers?updated_since=${encodeURIComponent("2026-01-02T03:04:05+02:00")}`,
        {
          token
        }
      )
      assert.strictEqual(zoned.status, 200)
    }))

  it.effect("arrays over their bound and NUL in a string: 422 naming the field, nothing written", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const phrases = Array.from({ length: 101 }, (_, i) => ({ phrase: `p${i}` }))
      const agent = yield* raw("POST", "/v1/agents", { token, json: { name: "Bot", prohibited_phrases: phrases } })
      assert.strictEqual(agent.status, 422)
      assert.deepStrictEqual(Object.keys((agent.body as { errors: object }).errors), ["prohibited_phrases"])
      const company = yield* raw("POST", "/v1/companies", { token, json: { name: "Glo\u0000bex" } })
      assert.strictEqual(company.status, 422)
      assert.deepStrictEqual(Object.keys((company.body as { errors: object }).errors), ["name"])
      const search = yield* raw("GET", `/v1/customers?q=${encodeURIComponent("a\u0000")}`, { token })
      assert.strictEqual(search.status, 422)
      const lists = yield* Effect.all([raw("GET", "/v1/agents", { token }), raw("GET", "/v1/companies", { token })])
      for (const list of lists) assert.deepStrictEqual((list.body as { data: unknown }).data, [])
    }))
})
