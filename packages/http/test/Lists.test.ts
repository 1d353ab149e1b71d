/** The list envelope (D16-D18) on a real list: absolute links keeping other parameters, meta, bounds. */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { baseUrl, raw, tenant, testServer } from "./Harness.js"

interface Envelope {
  readonly data: ReadonlyArray<{ readonly name: string }>
  readonly links: Record<"first" | "last" | "prev" | "next", string | null>
  readonly meta: Record<string, unknown>
}

layer(testServer("lists"), { excludeTestServices: true })("lists", (it) => {
  it.effect("links are absolute, keep the other query parameters, and meta counts the page (D17)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      for (const name of ["a", "b", "c"]) yield* client.companies.create({ payload: { name } })
      const base = yield* baseUrl
      const first = yield* raw("GET", "/v1/companies?per_page=2&foo=bar", { token })
      assert.strictEqual(first.status, 200)
      const body = first.body as Envelope
      assert.deepStrictEqual(body.data.map((c) => c.name), ["c", "b"])
      assert.deepStrictEqual(body.links, {
        first: `${base}/v1/companies?per_page=2&foo=bar&page=1`,
        last: `${base}/v1/companies?per_page=2&foo=bar&page=2`,
        prev: null,
        next: `${base}/v1/companies?per_page=2&foo=bar&page=2`
      })
      assert.deepStrictEqual(body.meta, {
        current_page: 1,
        from: 1,
        last_page: 2,
        path: `${base}/v1/companies`,
        per_page: 2,
        to: 2,
        total: 3
      })
      const second = (yield* raw("GET", "/v1/companies?page=2&per_page=2", { token })).body as Envelope
      assert.deepStrictEqual(second.data.map((c) => c.name), ["a"])
      assert.strictEqual(second.links.prev, `${base}/v1/companies?page=1&per_page=2`)
      assert.strictEqual(second.links.next, null)
      assert.deepStrictEqual([second.meta.from, second.meta.to], [3, 3])
    }))

  it.effect("defaults are page 1 and 15 per page; a page past the end is 200 with empty data (D16)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      yield* client.companies.create({ payload: { name: "only" } })
      const defaults = (yield* raw("GET", "/v1/companies", { token })).body as Envelope
      assert.deepStrictEqual([defaults.meta.current_page, defaults.meta.per_page, defaults.meta.total], [1, 15, 1])
      const past = yield* raw("GET", "/v1/companies?page=9", { token })
      assert.strictEqual(past.status, 200)
      const body = past.body as Envelope
      assert.deepStrictEqual(body.data, [])
      assert.deepStrictEqual([body.meta.from, body.meta.to, body.meta.last_page], [null, null, 1])
      const typed = yield* client.companies.list({ urlParams: { per_page: 1 } })
      assert.strictEqual(typed.meta.per_page, 1)
      assert.strictEqual(typed.data[0]!.name, "only")
    }))

  it.effect("per_page outside 1..100 and page below 1 or not an integer: 422 keyed by the parameter (D16)", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
        ["per_page=0", ["per_page"]],
        ["per_page=101", ["per_page"]],
        ["per_page=abc", ["per_page"]],
        ["page=0", ["page"]],
        ["page=1.5", ["page"]],
        ["page=-1&per_page=1000", ["page", "per_page"]]
      ]
      for (const [query, keys] of cases) {
        const response = yield* raw("GET", `/v1/companies?${query}`, { token })
        assert.strictEqual(response.status, 422, query)
        const body = response.body as { message: string; errors: Record<string, unknown> }
        assert.strictEqual(body.message, "The given data was invalid.")
        assert.deepStrictEqual(Object.keys(body.errors).sort(), keys, query)
      }
      assert.strictEqual((yield* raw("GET", "/v1/companies?per_page=100&page=1", { token })).status, 200)
    }))
})
