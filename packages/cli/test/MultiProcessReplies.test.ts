/**
 * The AI reply loop across server processes (D43, D53): two `support-engine serve` children on one PostgreSQL
 * database, both running the reply worker, receive customer messages for an `auto_reply` agent, spread over both.
 * Every message is answered exactly once (one job per message, one reply per job), whichever process claimed it.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { DbInt } from "@support-engine/storage"
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { fetchJson } from "./Harness.js"
import {
  adminUrl,
  freshDatabase,
  provision,
  type ServerProcess,
  startServer,
  waitUntil
} from "./MultiProcessFixture.js"

const CONVERSATIONS = 10
const MESSAGES = 60

const JobRow = Schema.Struct({
  status: Schema.String,
  outcome: Schema.NullOr(Schema.String),
  reply: Schema.NullOr(Schema.String)
})

describe.skipIf(adminUrl === undefined)("AI replies across processes on one PostgreSQL database (D43, D53)", () => {
  const admin = adminUrl!
  it.live("two processes answer every customer message exactly once", () =>
    Effect.gen(function*() {
      const database = yield* freshDatabase(admin)
      const [token] = yield* provision(database.url, 1)
      const env = { SUPPORT_DATABASE_URL: database.url, SUPPORT_RATE_LIMIT_PER_SECOND: "0" }
      const servers = yield* Effect.all([startServer("a", env), startServer("b", env)], { concurrency: 2 })
      const post = (server: ServerProcess, path: string, body: unknown) =>
        fetchJson(`${server.baseUrl}/v1${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(body)
        }).pipe(
          Effect.filterOrFail(
            (r) => r.status === 201,
            (r) => new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`)
          ),
          Effect.map((r) => r.body as { id: string })
        )
      const [a] = servers
      const agent = yield* post(a, "/agents", { name: "Bot", auto_reply: true, max_messages_per_session: 1000 })
      yield* post(a, "/kb-articles", {
        status: "published",
        translations: [{ locale: "en", title: "Shipping", content: "We ship worldwide." }]
      })
      const customer = yield* post(a, "/customers", { email: "ada@example.com" })
      const conversations = yield* Effect.forEach(
        Array.from({ length: CONVERSATIONS }),
        () => post(a, "/conversations", { customer_id: customer.id, assignee_id: agent.id, assignee_type: "agent" })
      )
      yield* Effect.forEach(
        Array.from({ length: MESSAGES }, (_, i) => i),
        (i) =>
          post(servers[i % 2]!, `/conversations/${conversations[i % CONVERSATIONS]!.id}/messages`, {
            sender_type: "customer",
            sender_id: customer.id,
            content: "Do you ship abroad?"
          }),
        { concurrency: 8 }
      )

      const jobs = Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`SELECT status, outcome, reply_message_id AS reply FROM reply_jobs`
      ).pipe(Effect.flatMap(Schema.decodeUnknownEffect(Schema.Array(JobRow))), Effect.provide(database.client))
      let last: ReadonlyArray<typeof JobRow.Type> = []
      yield* waitUntil(
        Effect.map(jobs, (rows) => {
          last = rows
          return rows.length === MESSAGES && rows.every((r) => r.status === "done")
        }),
        "60 seconds",
        () => `jobs not done: ${JSON.stringify(last.filter((r) => r.status !== "done"))}`
      )
      assert.deepStrictEqual([...new Set(last.map((r) => r.outcome))], ["replied"])
      assert.strictEqual(new Set(last.map((r) => r.reply)).size, MESSAGES)
      const perConversation = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql`SELECT conversation_id, SUM(CASE WHEN sender_type = 'agent' THEN 1 ELSE 0 END) AS replies,
              SUM(CASE WHEN sender_type = 'customer' THEN 1 ELSE 0 END) AS asked FROM messages GROUP BY conversation_id`
      ).pipe(
        Effect.flatMap(Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ replies: DbInt, asked: DbInt })))),
        Effect.provide(database.client)
      )
      assert.strictEqual(perConversation.length, CONVERSATIONS)
      for (const c of perConversation) {
        assert.deepStrictEqual([c.replies, c.asked], [MESSAGES / CONVERSATIONS, MESSAGES / CONVERSATIONS])
      }
    }).pipe(Effect.provide(NodeServices.layer)), { timeout: 120_000 })
})
