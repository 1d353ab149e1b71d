/**
 * Idempotency keys across server processes (D52): two `support-engine serve` children on one PostgreSQL database
 * receive the same keyed POST at the same time, several times each. For every key exactly one customer is
 * written; every answer is the first one (201, the same body) or 409 IDEMPOTENCY_KEY_IN_USE while it runs; a
 * retry afterwards, to either process, replays the first answer. A second test runs every integrator feature over
 * HTTP against one `serve` process on PostgreSQL (the HTTP package's own tests run on SQLite).
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { DbInt } from "@support-engine/storage"
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { adminUrl, freshDatabase, provision, startServer } from "./MultiProcessFixture.js"

const KEYS = 20
/** Identical requests per key per process, all sent at once. */
const COPIES = 3

const post = (url: string, token: string, key: string, body: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify(body)
    })
    return {
      status: response.status,
      text: await response.text(),
      replayed: response.headers.get("idempotent-replayed") === "true"
    }
  })

describe.skipIf(adminUrl === undefined)("idempotency keys across processes on one PostgreSQL database (D52)", () => {
  const admin = adminUrl!
  it.live("two processes racing the same keys make exactly one write per key", () =>
    Effect.gen(function*() {
      const database = yield* freshDatabase(admin)
      const [token] = yield* provision(database.url, 1)
      const env = { SUPPORT_DATABASE_URL: database.url, SUPPORT_RATE_LIMIT_PER_SECOND: "0" }
      const [a, b] = yield* Effect.all([startServer("a", env), startServer("b", env)], { concurrency: 2 })
      const servers = [a, b]

      const statuses = new Map<number, number>()
      for (let k = 0; k < KEYS; k++) {
        const key = `race-${k}`
        // No email: its unique index would refuse a second write by itself; the key alone must.
        const body = { first_name: "Race", last_name: key }
        const answers = yield* Effect.all(
          servers.flatMap((server) =>
            Array.from({ length: COPIES }, () => post(`${server.baseUrl}/v1/customers`, token!, key, body))
          ),
          { concurrency: "unbounded" }
        )
        for (const answer of answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
        const created = answers.filter((x) => x.status === 201)
        assert.isAtLeast(created.length, 1, key)
        assert.strictEqual(new Set(created.map((x) => x.text)).size, 1, `${key}: one body`)
        for (const answer of answers) assert.include([201, 409], answer.status, `${key}: ${answer.text}`)
        // Afterwards both processes replay the first answer.
        for (const server of servers) {
          const again = yield* post(`${server.baseUrl}/v1/customers`, token!, key, body)
          assert.strictEqual(again.status, 201)
          assert.isTrue(again.replayed)
          assert.strictEqual(again.text, created[0]!.text)
        }
      }

      const rows = yield* Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql`SELECT last_name, COUNT(*) AS n FROM customers GROUP BY last_name`.pipe(
            Effect.flatMap(
              Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ last_name: Schema.String, n: DbInt })))
            )
          )),
        database.client
      )
      assert.strictEqual(rows.length, KEYS)
      for (const row of rows) {
        assert.strictEqual(row.n, 1, row.last_name)
      }
      // Not a test condition (timing decides it), but worth seeing when it runs.
      yield* Effect.logInfo(`answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`)
    }).pipe(Effect.provide(NodeServices.layer)), { timeout: 120_000 })

  it.live(
    "cursors, ETags, idempotency, rate-limit headers and search over HTTP on PostgreSQL",
    () =>
      Effect.gen(function*() {
        const database = yield* freshDatabase(admin)
        const [token] = yield* provision(database.url, 1)
        const server = yield* startServer("pg", { SUPPORT_DATABASE_URL: database.url })
        const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
          Effect.promise(async () => {
            const init: RequestInit = {
              method,
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers }
            }
            if (body !== undefined) init.body = JSON.stringify(body)
            const response = await fetch(`${server.baseUrl}${path}`, init)
            const text = await response.text()
            return { status: response.status, headers: response.headers, json: text === "" ? null : JSON.parse(text) }
          })

        // Idempotency: one write, the replay flagged.
        const first = yield* call("POST", "/v1/customers", { first_name: "Ada", email: "ada@example.test" }, {
          "idempotency-key": "pg-1"
        })
        const again = yield* call("POST", "/v1/customers", { first_name: "Ada", email: "ada@example.test" }, {
          "idempotency-key": "pg-1"
        })
        assert.deepStrictEqual([first.status, again.status], [201, 201])
        assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
        assert.deepStrictEqual(again.json, first.json)
        // Rate-limit headers, with the defaults.
        assert.strictEqual(first.headers.get("ratelimit-policy"), `"default";q=200;w=2`)

        // ETag and If-Match.
        const id = (first.json as { id: string }).id
        const etag = first.headers.get("etag")!
        assert.strictEqual(
          (yield* call("PUT", `/v1/customers/${id}`, { last_name: "L" }, { "if-match": etag })).status,
          200
        )
        const stale = yield* call("PUT", `/v1/customers/${id}`, { last_name: "X" }, { "if-match": etag })
        assert.strictEqual(stale.status, 412)
        assert.strictEqual((stale.json as { code: string }).code, "PRECONDITION_FAILED")

        // Cursors and updated_since.
        for (let i = 0; i < 4; i++) yield* call("POST", "/v1/companies", { name: `Co ${i}` })
        const names: Array<string> = []
        let page = yield* call("GET", "/v1/companies?per_page=3&updated_since=2000-01-01T00:00:00Z")
        for (;;) {
          const body = page.json as { data: Array<{ name: string }>; meta: { next_cursor: string | null } }
          names.push(...body.data.map((c) => c.name))
          if (body.meta.next_cursor === null) break
          page = yield* call("GET", `/v1/companies?per_page=3&cursor=${body.meta.next_cursor}`)
        }
        assert.deepStrictEqual(names, ["Co 0", "Co 1", "Co 2", "Co 3"])

        // Search.
        const found = yield* call("GET", "/v1/customers?q=ADA%20exam")
        assert.deepStrictEqual((found.json as { data: Array<{ id: string }> }).data.map((c) => c.id), [id])
      }).pipe(Effect.provide(NodeServices.layer)),
    { timeout: 120_000 }
  )
})
