/**
 * Hostile input over HTTP (D48, D49, issue 16): request bounds, unstorable strings, strict query numbers and dates,
 * deep JSON, and list pages bounded in bytes; a 422 names the field, nothing refused is written, never a 5xx.
 */
import { assert, layer } from "@effect/vitest"
import { PAGE_BYTE_BUDGET } from "@support-engine/core"
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
      assert.deepStrictEqual(
        fieldsOf(yield* raw("GET", `/v1/customers?q=${encodeURIComponent("a\u0000")}`, { token })),
        [
          "q"
        ]
      )
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
          "per_page=1e1",
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
      const atBound = yield* raw("POST", "/v1/conversations", {
        token,
        headers,
        body: `{"tags":${"[".repeat(63)}${"]".repeat(63)}}`
      })
      assert.include(fieldsOf(atBound), "tags.0")
    }))

  it.effect(
    "a page of messages stops before 4 MiB of JSON, says so, and the cursor continues after it",
    () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        const customer = yield* raw("POST", "/v1/customers", { token, json: { email: "big@example.test" } })
        const customerId = (customer.body as { id: string }).id
        const conversation = yield* raw("POST", "/v1/conversations", { token, json: { customer_id: customerId } })
        const path = `/v1/conversations/${(conversation.body as { id: string }).id}/messages`
        const content = "m".repeat(1_000_000)
        for (let i = 0; i < 5; i++) {
          const created = yield* raw("POST", path, { token, json: { sender_type: "system", content } })
          assert.strictEqual(created.status, 201)
        }
        const first = yield* raw("GET", "/v1/messages?per_page=100", { token })
        assert.strictEqual(first.status, 200)
        assert.isAtMost(Buffer.byteLength(first.text), PAGE_BYTE_BUDGET)
        const page = first.body as {
          data: Array<{ id: string }>
          meta: { truncated?: boolean; per_page: number; to: number; total: number; next_cursor: string | null }
          links: { next: string | null }
        }
        assert.strictEqual(page.data.length, 4)
        assert.deepStrictEqual([page.meta.truncated, page.meta.per_page, page.meta.to, page.meta.total], [
          true,
          100,
          4,
          5
        ])
        assert.isNotNull(page.meta.next_cursor)
        assert.include(page.links.next ?? "", `cursor=${encodeURIComponent(page.meta.next_cursor!)}`)
        const rest = yield* raw(
          "GET",
          `/v1/messages?per_page=100&cursor=${encodeURIComponent(page.meta.next_cursor!)}`,
          {
            token
          }
        )
        const tail = rest.body as { data: Array<{ id: string }>; meta: { truncated?: boolean; next_cursor: null } }
        assert.strictEqual(tail.data.length, 1)
        assert.isUndefined(tail.meta.truncated)
        assert.strictEqual(new Set([...page.data, ...tail.data].map((m) => m.id)).size, 5, "every message once")
        const events = yield* raw("GET", "/v1/events?per_page=100", { token })
        assert.isAtMost(Buffer.byteLength(events.text), PAGE_BYTE_BUDGET, "events carrying the messages too")
        const small = yield* raw("GET", "/v1/companies?per_page=100", { token })
        assert.notInclude(small.text, "truncated", "a page within the budget has no truncated key")
      }),
    { timeout: 60_000 }
  )

  it.effect("a page of articles with large translations stops before 4 MiB of JSON", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      // 65,535 characters of three UTF-8 bytes each per field: about 0.8 MB per translation, 1.6 MB per article.
      const text = "\u6f22".repeat(65_535)
      const fields = { title: text, content: text, excerpt: text, seo_title: text }
      for (let i = 0; i < 3; i++) {
        const article = yield* raw("POST", "/v1/kb-articles", {
          token,
          json: { translations: [{ locale: "en", ...fields }] }
        })
        assert.strictEqual(article.status, 201, article.text.slice(0, 200))
        const id = (article.body as { id: string }).id
        const translation = yield* raw("PUT", `/v1/kb-articles/${id}/translations/fr`, { token, json: fields })
        assert.strictEqual(translation.status, 200, translation.text.slice(0, 200))
      }
      const list = yield* raw("GET", "/v1/kb-articles?per_page=100", { token })
      assert.strictEqual(list.status, 200)
      assert.isAtMost(Buffer.byteLength(list.text), PAGE_BYTE_BUDGET)
      const page = list.body as { data: Array<unknown>; meta: { truncated?: boolean; total: number } }
      assert.deepStrictEqual([page.data.length, page.meta.truncated, page.meta.total], [2, true, 3])
    }), { timeout: 60_000 })
})
