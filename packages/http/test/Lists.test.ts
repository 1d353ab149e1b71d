/** The list envelope (D16-D18) on a real list: absolute links keeping other parameters, meta, bounds. */
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect } from "effect"
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
      const nextCursor = body.meta.next_cursor
      assert.isString(nextCursor)
      assert.deepStrictEqual(body.meta, {
        current_page: 1,
        from: 1,
        last_page: 2,
        path: `${base}/v1/companies`,
        per_page: 2,
        to: 2,
        total: 3,
        next_cursor: nextCursor
      })
      const second = (yield* raw("GET", "/v1/companies?page=2&per_page=2", { token })).body as Envelope
      assert.deepStrictEqual(second.data.map((c) => c.name), ["a"])
      assert.strictEqual(second.links.prev, `${base}/v1/companies?page=1&per_page=2`)
      assert.strictEqual(second.links.next, null)
      assert.deepStrictEqual([second.meta.from, second.meta.to], [3, 3])
      assert.strictEqual(second.meta.next_cursor, null)
    }))

  it.effect("cursor pages link forward by cursor, carry no totals, and end with next_cursor null (D52)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      for (const name of ["a", "b", "c", "d", "e"]) yield* client.companies.create({ payload: { name } })
      const base = yield* baseUrl
      const names: Array<string> = []
      let url: string | null = "/v1/companies?per_page=2&foo=bar"
      let pages = 0
      while (url !== null) {
        const response = yield* raw("GET", url.replace(base, ""), { token })
        assert.strictEqual(response.status, 200)
        const body = response.body as Envelope
        names.push(...body.data.map((c) => c.name))
        if (pages > 0) {
          assert.deepStrictEqual([body.meta.total, body.meta.current_page, body.meta.last_page], [null, null, null])
          assert.strictEqual(body.links.first, `${base}/v1/companies?per_page=2&foo=bar`)
          assert.deepStrictEqual([body.links.last, body.links.prev], [null, null])
        }
        if (body.meta.next_cursor === null) assert.strictEqual(body.links.next, null)
        else if (pages === 0) {
          // A page-number answer links by page number (D17) and offers the cursor in meta.
          assert.strictEqual(body.links.next, `${base}/v1/companies?per_page=2&foo=bar&page=2`)
        } else {
          const next = new URL(body.links.next!)
          assert.strictEqual(next.searchParams.get("cursor"), body.meta.next_cursor)
          assert.strictEqual(next.searchParams.get("foo"), "bar")
          assert.isNull(next.searchParams.get("page"))
        }
        url = body.meta.next_cursor === null
          ? null
          : `/v1/companies?per_page=2&foo=bar&cursor=${body.meta.next_cursor}`
        pages++
      }
      assert.deepStrictEqual(names, ["e", "d", "c", "b", "a"])
      assert.strictEqual(pages, 3)
      // The typed client passes cursor and updated_since too.
      const typed = yield* client.companies.list({
        query: { per_page: 4, updated_since: DateTime.makeUnsafe("2000-01-01T00:00:00Z") }
      })
      assert.deepStrictEqual(typed.data.map((c) => c.name), ["a", "b", "c", "d"])
      const rest = yield* client.companies.list({ query: { per_page: 4, cursor: typed.meta.next_cursor! } })
      assert.deepStrictEqual(rest.data.map((c) => c.name), ["e"])
    }))

  it.effect("page with cursor, page with updated_since, a bad cursor and a bad time are 422 (D52)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      for (const name of ["a", "b"]) yield* client.companies.create({ payload: { name } })
      const cursor = (yield* client.companies.list({ query: { per_page: 1 } })).meta.next_cursor!
      const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
        [`page=1&cursor=${cursor}`, ["page"]],
        ["page=1&updated_since=2026-01-01T00:00:00Z", ["page"]],
        ["cursor=not-a-cursor", ["cursor"]],
        [`cursor=${"x".repeat(513)}`, ["cursor"]],
        ["updated_since=yesterday", ["updated_since"]]
      ]
      for (const [query, keys] of cases) {
        const response = yield* raw("GET", `/v1/companies?${query}`, { token })
        assert.strictEqual(response.status, 422, query)
        const body = response.body as { message: string; errors: Record<string, unknown> }
        assert.deepStrictEqual(Object.keys(body.errors).sort(), keys, query)
      }
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
      const typed = yield* client.companies.list({ query: { per_page: 1 } })
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

  it.effect("every list walks by cursor to the same rows as one page-number page (D52)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const hook = yield* client.webhooks.create({ payload: { url: "https://hooks.example.com/all", events: ["*"] } })
      for (let i = 0; i < 3; i++) {
        yield* client.agents.create({ payload: { name: `Agent ${i}` } })
        yield* client.training.create({ payload: { type: "text", content: `Text ${i}` } })
        yield* client.kb.create({ payload: { translations: [{ locale: "en", title: `T${i}`, content: "C" }] } })
        yield* client.webhooks.create({ payload: { url: `https://hooks.example.com/${i}`, events: ["*"] } })
      }
      const customer = yield* client.customers.create({ payload: { email: "walk@example.test" } })
      const conversation = yield* client.conversations.create({ payload: { customer_id: customer.id } })
      for (let i = 0; i < 3; i++) {
        yield* client.messages.create({
          params: { id: conversation.id },
          payload: { sender_type: "customer", sender_id: customer.id, content: `m${i}` }
        })
      }
      const ids = (path: string, query: string) =>
        Effect.map(
          raw("GET", `${path}?${query}`, { token }),
          (r) => r.body as { data: Array<{ id: string }>; meta: { next_cursor: string | null } }
        )
      for (
        const path of [
          "/v1/agents",
          "/v1/training-data",
          "/v1/kb-articles",
          "/v1/webhooks",
          "/v1/messages",
          "/v1/events",
          `/v1/webhooks/${hook.id}/deliveries`
        ]
      ) {
        const all = (yield* ids(path, "per_page=100")).data.map((x) => x.id)
        const walked: Array<string> = []
        let page = yield* ids(path, "per_page=2")
        walked.push(...page.data.map((x) => x.id))
        while (page.meta.next_cursor !== null) {
          page = yield* ids(path, `per_page=2&cursor=${page.meta.next_cursor}`)
          walked.push(...page.data.map((x) => x.id))
        }
        assert.deepStrictEqual(walked, all, path)
        assert.isAtLeast(all.length, 3, path)
      }
    }))
})
