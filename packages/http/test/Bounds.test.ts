/** Hostile input over HTTP: request bounds, unstorable strings, strict query numbers and dates, deep JSON (D48, D49). */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { raw, tenant, testServer } from "./Harness.js"

/** The D13 field keys of a 422 answer. */
const fieldsOf = (response: { readonly status: number; readonly body: unknown }): Array<string> => {
  assert.strictEqual(response.status, 422, JSON.stringify(response.body))
  return Object.keys((response.body as { errors: Record<string, unknown> }).errors)
}

layer(testServer("bounds"), { excludeTestServices: true })("request bounds (D48, D49)", (it) => {
  it.effect("agent lists: 100 phrases of 500 characters and 50 rules pass; one more of either is a 422 on its field", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const phrases = (n: number, length = 10) =>
        Array.from({ length: n }, (_, i) => ({ phrase: `${i}`.padEnd(length, "x") }))
      const ok = yield* raw("POST", "/v1/agents", {
        token,
        json: { name: "Bot", prohibited_phrases: phrases(100, 500) }
      })
      assert.strictEqual(ok.status, 201)
      assert.deepStrictEqual(
        fieldsOf(yield* raw("POST", "/v1/agents", { token, json: { name: "Bot", prohibited_phrases: phrases(101) } })),
        ["prohibited_phrases"]
      )
      assert.deepStrictEqual(
        fieldsOf(
          yield* raw("POST", "/v1/agents", { token, json: { name: "Bot", prohibited_phrases: phrases(1, 501) } })
        ),
        ["prohibited_phrases.0.phrase"]
      )
      const user = "00000000-0000-7000-8000-000000000001"
      const rules = (n: number) => Array.from({ length: n }, () => ({ channel: "chat", rule: "r", escalate_to: user }))
      assert.deepStrictEqual(
        fieldsOf(yield* raw("POST", "/v1/agents", { token, json: { name: "Bot", escalation_rules: rules(51) } })),
        ["escalation_rules"]
      )
      const longRule = [{ channel: "chat", rule: "r".repeat(1001), escalate_to: user }]
      assert.deepStrictEqual(
        fieldsOf(yield* raw("POST", "/v1/agents", { token, json: { name: "Bot", escalation_rules: longRule } })),
        ["escalation_rules.0.rule"]
      )
    }))

  it.effect("a NUL or a lone surrogate in any string is a 422 naming the field; an emoji's pair is stored as sent", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const nul = yield* raw("POST", "/v1/companies", { token, json: { name: "Glo\u0000bex" } })
      assert.deepStrictEqual(fieldsOf(nul), ["name"])
      assert.deepStrictEqual(
        (nul.body as { errors: Record<string, Array<string>> }).errors.name,
        ["must not contain NUL (U+0000) characters"]
      )
      assert.deepStrictEqual(
        fieldsOf(yield* raw("POST", "/v1/companies", { token, json: { name: "Globex \ud800" } })),
        ["name"]
      )
      assert.deepStrictEqual(
        fieldsOf(yield* raw("POST", "/v1/customers", { token, json: { first_name: "\udc00Ada" } })),
        ["first_name"]
      )
      assert.deepStrictEqual(
        fieldsOf(yield* raw("GET", "/v1/customers?email=a%00@example.test", { token })),
        ["email"]
      )
      const emoji = yield* raw("POST", "/v1/companies", { token, json: { name: "Globex \ud83d\ude80" } })
      assert.strictEqual(emoji.status, 201)
      const id = (emoji.body as { id: string }).id
      const read = yield* raw("GET", `/v1/companies/${id}`, { token })
      assert.strictEqual((read.body as { name: string }).name, "Globex 🚀")
      const list = yield* raw("GET", "/v1/companies", { token })
      assert.strictEqual((list.body as { meta: { total: number } }).meta.total, 1, "nothing refused was written")
    }))

  it.effect("query numbers are decimal digits only and page is at most 1,000,000; never a 5xx", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      for (
        const query of [
          "page=0x10",
          "page=1e1",
          "page=%2B5",
          "page=5.0",
          "page=1e15",
          "page=1000001",
          "page=0",
          "per_page=101",
          "per_page=-1",
          "per_page=",
          "page=99999999999999999999"
        ]
      ) {
        const response = yield* raw("GET", `/v1/customers?${query}`, { token })
        assert.deepStrictEqual([query, fieldsOf(response)], [query, [query.split("=")[0]!]])
      }
      const last = yield* raw("GET", "/v1/customers?page=1000000&per_page=100", { token })
      assert.strictEqual(last.status, 200)
      assert.deepStrictEqual((last.body as { data: Array<unknown> }).data, [])
    }))

  it.effect("date-times are strict RFC 3339 with a zone, normalised to UTC", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      for (const since of ["Jan 2 2026", "2026-01-02", "2026-01-02T10:00:00", "2026-02-30T10:00:00Z", "1767355200"]) {
        const response = yield* raw("GET", `/v1/customers?updated_since=${encodeURIComponent(since)}`, { token })
        assert.deepStrictEqual([since, fieldsOf(response)], [since, ["updated_since"]])
      }
      const zoned = yield* raw(
        "GET",
        `/v1/customers?updated_since=${encodeURIComponent("2026-01-02T10:00:00+02:00")}`,
        {
          token
        }
      )
      assert.strictEqual(zoned.status, 200)
    }))

  it.effect("JSON nested deeper than 64 levels is a 400 MALFORMED_JSON; 64 levels reach validation", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const nest = (depth: number) => `{"name":"x","extra":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`
      const headers = { "content-type": "application/json" }
      const deep = yield* raw("POST", "/v1/companies", { token, body: nest(65), headers })
      assert.strictEqual(deep.status, 400)
      assert.strictEqual((deep.body as { code: string }).code, "MALFORMED_JSON")
      const huge = yield* raw("POST", "/v1/companies", {
        token,
        body: `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
        headers
      })
      assert.strictEqual(huge.status, 400)
      const fine = yield* raw("POST", "/v1/companies", { token, body: nest(64), headers })
      assert.strictEqual(fine.status, 201)
    }))
})
