/**
 * Idempotency keys across server processes (D52): two `support-engine serve` children on one PostgreSQL database
 * receive the same keyed POST at the same time, several times each. For every key exactly one customer is
 * written; every answer is the first one (201, the same body) or 409 IDEMPOTENCY_KEY_IN_USE while it runs; a
 * retry afterwards, to either process, replays the first answer.
 */
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { DbInt } from "@support-engine/storage"
import { Effect, Schema } from "effect"
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

if (adminUrl === undefined) {
  describe("idempotency keys across processes", () => {
    it.skip("skipped: set SUPPORT_TEST_PG_URL (for example postgres://postgres@127.0.0.1:5432/test) to run it", () => {})
  })
} else {
  const admin = adminUrl
  describe("idempotency keys across processes on one PostgreSQL database (D52)", () => {
    it.scopedLive("two processes racing the same keys make exactly one write per key", () =>
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
              Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ last_name: Schema.String, n: DbInt }))))
            )),
          database.client
        )
        assert.strictEqual(rows.length, KEYS)
        for (const row of rows) {
          assert.strictEqual(row.n, 1, row.last_name)
        }
        // Not a test condition (timing decides it), but worth seeing when it runs.
        yield* Effect.logInfo(`answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`)
      }).pipe(Effect.provide(NodeContext.layer)), { timeout: 120_000 })
  })
}
