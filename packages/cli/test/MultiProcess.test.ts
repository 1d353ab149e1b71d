/**
 * Several server processes on one PostgreSQL database (D43, issue 5): two `support-engine serve` children share one
 * delivery queue. While both run, 10,000 events are created and their 10,000 deliveries arrive at the receiver
 * exactly once each (counted by `webhook-id`, D37). Then one process is killed with SIGKILL in the middle of a
 * request; the survivor finishes the queue: every delivery arrives at least once (D38), and the only repeats are
 * deliveries the dead process held.
 *
 * Events are created over HTTP, spread over both processes and over WORKSPACES workspaces (one workspace's creates
 * serialise on its list counters), each event delivered to its workspace's WEBHOOKS subscriptions (D37). Creating
 * the events is the slow half on a two-core machine: about two minutes for the whole test.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { DbInt } from "@support-engine/storage"
import { verify } from "@support-engine/webhooks"
import { Duration, Effect, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { fetchJson } from "./Harness.js"
import {
  adminUrl,
  countingReceiver,
  freshDatabase,
  type Hit,
  provision,
  type ServerProcess,
  startServer,
  waitUntil
} from "./MultiProcessFixture.js"

const WORKSPACES = 8
/** Webhooks per workspace, each subscribed to `customer.created`. */
const WEBHOOKS = 1
/** Events of phase 1 (both processes run): WEBHOOKS deliveries each. */
const EVENTS_1 = 10_000
/** Events of phase 2 (one process is killed). */
const EVENTS_2 = 2_000
/** Delivery attempts in flight per process: the bound on what a killed process can leave behind. */
const CONCURRENCY = 16
/** The attempt timeout; a claim's lease is this plus the fixed 5 s margin (D38): a takeover comes after 8 s. */
const TIMEOUT_MS = 3000
/** While events are created the receiver answers this late, so that a queue builds up. */
const SLOW_ANSWER_MS = 300
/** Once the queue is built, the killed process dies on its n-th request after that, before it is answered. */
const KILL_ON_HIT = 20
const DRAIN_LIMIT = Duration.seconds(150)

const headers = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" })

const DeliveryRow = Schema.Struct({
  id: Schema.String,
  status: Schema.String,
  attempts: DbInt,
  claimed_by: Schema.NullOr(Schema.String)
})

const deliveries = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`SELECT id, status, attempts, claimed_by FROM webhook_deliveries`
  return yield* Schema.decodeUnknownEffect(Schema.Array(DeliveryRow))(rows)
})

const undelivered = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status <> 'delivered'`
  const [row] = yield* Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ n: DbInt })))(rows)
  return row!.n
})

/**
 * Creates customers `from`..`from + count - 1` (one `customer.created` event each), round-robin over the servers and
 * over the workspaces (whose tokens are given).
 */
const createCustomers = (
  servers: ReadonlyArray<ServerProcess>,
  tokens: ReadonlyArray<string>,
  from: number,
  count: number
) =>
  Effect.forEach(
    Array.from({ length: count }, (_, i) => from + i),
    (n) =>
      Effect.flatMap(
        fetchJson(`${servers[n % servers.length]!.baseUrl}/v1/customers`, {
          method: "POST",
          headers: headers(tokens[Math.floor(n / servers.length) % tokens.length]!),
          body: JSON.stringify({ email: `customer-${n}@example.com` })
        }),
        (response) =>
          response.status === 201
            ? Effect.void
            : Effect.fail(new Error(`customer ${n}: ${response.status} ${JSON.stringify(response.body)}`))
      ),
    { concurrency: 16, discard: true }
  )

const seconds = (start: number, end = performance.now()) => ((end - start) / 1000).toFixed(1)

const repeated = (counts: ReadonlyMap<string, number>) => [...counts].filter(([, n]) => n > 1).map(([id]) => id)

const tally = (hits: ReadonlyArray<Hit>) => {
  const counts = { a: 0, b: 0, unknown: 0 }
  for (const hit of hits) counts[hit.from === "a" ? "a" : hit.from === "b" ? "b" : "unknown"]++
  return counts
}

describe.skipIf(adminUrl === undefined)("several serve processes on one PostgreSQL database (D43)", () => {
  const admin = adminUrl!
  it.live(
    "10,000 events delivered exactly once by two processes; after a SIGKILL the survivor loses nothing",
    () =>
      Effect.gen(function*() {
        const database = yield* freshDatabase(admin)
        const receiver = yield* countingReceiver
        const sql = <A, E>(query: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.provide(query, database.client)
        const env = {
          SUPPORT_DATABASE_URL: database.url,
          SUPPORT_WEBHOOK_ALLOW_PRIVATE: "true",
          SUPPORT_WEBHOOK_CONCURRENCY: String(CONCURRENCY),
          SUPPORT_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
          SUPPORT_WEBHOOK_POLL_INTERVAL_MS: "200",
          SUPPORT_WEBHOOK_RETRY_BASE_MS: "200",
          SUPPORT_WEBHOOK_MAX_ATTEMPTS: "10",
          SUPPORT_WEBHOOK_DEACTIVATE_AFTER: "5"
        }
        const tokens = yield* provision(database.url, WORKSPACES)
        // Started together, as a deployment starts them; the database is not empty, so neither bootstraps.
        const [a, b] = yield* Effect.all([startServer("a", env), startServer("b", env)], { concurrency: 2 })
        yield* receiver.watch(a.pid, a.name)
        yield* receiver.watch(b.pid, b.name)
        for (const server of [a, b]) assert.notInclude(yield* server.stdout, "Created workspace")

        const secrets = new Map<string, string>()
        for (const [w, token] of tokens.entries()) {
          for (let i = 0; i < WEBHOOKS; i++) {
            const url = `${receiver.url}/${w}/${i}`
            const created = yield* fetchJson(`${[a, b][i % 2]!.baseUrl}/v1/webhooks`, {
              method: "POST",
              headers: headers(token),
              body: JSON.stringify({ url, events: ["customer.created"] })
            })
            assert.strictEqual(created.status, 201, JSON.stringify(created.body))
            secrets.set(new URL(url).pathname, (created.body as { secret: string }).secret)
          }
        }

        // Phase 1: both processes run; every delivery arrives once. The receiver answers slowly while the events
        // are created, so that most deliveries queue up and the drain of the queue can be timed on its own.
        const total1 = EVENTS_1 * WEBHOOKS
        const start1 = performance.now()
        receiver.state.delayMs = SLOW_ANSWER_MS
        yield* createCustomers([a, b], tokens, 0, EVENTS_1)
        receiver.state.delayMs = 0
        const created1 = performance.now()
        const backlog1 = total1 - receiver.counts.size
        yield* waitUntil(
          Effect.sync(() => receiver.counts.size >= total1),
          DRAIN_LIMIT,
          () => `phase 1: ${receiver.counts.size} of ${total1} deliveries arrived`
        )
        const drained1 = performance.now()
        yield* waitUntil(
          Effect.map(sql(undelivered), (n) => n === 0),
          DRAIN_LIMIT,
          () => "phase 1: deliveries still not recorded as delivered"
        )
        const twice1 = repeated(receiver.counts)
        assert.strictEqual(twice1.length, 0, `no delivery arrives twice; these did: ${twice1.slice(0, 5).join(", ")}`)
        assert.strictEqual(receiver.hits.length, total1)
        const rows1 = yield* sql(deliveries)
        assert.strictEqual(rows1.length, total1)
        assert.deepStrictEqual(
          rows1.filter((r) => r.status !== "delivered" || r.attempts !== 1 || r.claimed_by !== null),
          [],
          "every row delivered on its first attempt, its lease released"
        )
        assert.isTrue(rows1.every((r) => receiver.counts.get(r.id) === 1), "the receiver got exactly the rows")
        for (const server of [a, b]) {
          assert.isTrue(yield* server.isRunning, `${server.name} runs`)
          assert.strictEqual((yield* fetchJson(`${server.baseUrl}/health`)).status, 200)
        }
        const byProcess1 = tally(receiver.hits)
        if (receiver.attributable) {
          assert.strictEqual(byProcess1.unknown, 0, "every connection attributed to a process")
          assert.isAbove(byProcess1.a, 0, "a delivered")
          assert.isAbove(byProcess1.b, 0, "b delivered")
        }
        const drain1 = `the ${backlog1} deliveries then queued arrived in ${seconds(created1, drained1)} s`
        console.log(
          `phase 1: ${EVENTS_1} events (${total1} deliveries) created over HTTP in ${seconds(start1, created1)} s` +
            ` with slow answers; ${drain1}; by process ${JSON.stringify(byProcess1)}`
        )

        // Phase 2: while the events are created the receiver answers slowly, so a queue builds up; then it answers
        // at once, and `a` is killed on its KILL_ON_HIT-th request after that, before the answer.
        const total2 = total1 + EVENTS_2 * WEBHOOKS
        const phase2From = receiver.hits.length
        let queued = false
        let aHits = 0
        let killed: Hit | undefined
        receiver.state.delayMs = SLOW_ANSWER_MS
        receiver.state.onHit = (hit) => {
          if (!queued || killed !== undefined || hit.from !== a.name || ++aHits < KILL_ON_HIT) return
          killed = hit
          process.kill(a.pid, "SIGKILL")
        }
        yield* createCustomers([a, b], tokens, EVENTS_1, EVENTS_2)
        receiver.state.delayMs = 0
        queued = true
        yield* waitUntil(Effect.sync(() => killed !== undefined), DRAIN_LIMIT, () => "a was never killed")
        yield* a.exited
        const killedAt = performance.now()
        const claimedAtKill = (yield* sql(deliveries)).filter((r) => r.status === "pending" && r.claimed_by !== null)
        const pendingAtKill = yield* sql(undelivered)
        const claimantOfA = claimedAtKill.find((r) => r.id === killed!.id)?.claimed_by
        const heldByA = claimedAtKill.filter((r) => r.claimed_by === claimantOfA)

        yield* waitUntil(
          Effect.sync(() => receiver.counts.size >= total2),
          DRAIN_LIMIT,
          () => `phase 2: ${receiver.counts.size} of ${total2} deliveries arrived`
        )
        yield* waitUntil(
          Effect.map(sql(undelivered), (n) => n === 0),
          DRAIN_LIMIT,
          () => "phase 2: deliveries still not recorded as delivered"
        )
        const finishedAt = performance.now()

        const rows = yield* sql(deliveries)
        assert.strictEqual(rows.length, total2)
        assert.deepStrictEqual(rows.filter((r) => !receiver.counts.has(r.id)).map((r) => r.id), [], "nothing lost")
        assert.deepStrictEqual(
          rows.filter((r) => r.status !== "delivered" || r.attempts !== 1).map((r) => [r.id, r.status, r.attempts]),
          [],
          "every row delivered and recorded once: the killed attempts were never recorded"
        )
        assert.isAbove(pendingAtKill, CONCURRENCY, "a died mid-drain, with more queued than it could hold")
        assert.isDefined(claimantOfA, "the request a died on was still claimed by a")
        assert.isAtMost(heldByA.length, CONCURRENCY, "a process holds at most its concurrency")

        const duplicates = repeated(receiver.counts)
        const held = new Set(heldByA.map((r) => r.id))
        assert.include(duplicates, killed!.id, "the request a died on was delivered again")
        assert.deepStrictEqual(duplicates.filter((id) => !held.has(id)), [], "repeats only of what a held")
        for (const id of duplicates) {
          const arrivals = receiver.hits.filter((h) => h.id === id)
          assert.strictEqual(arrivals.length, 2, id)
          if (receiver.attributable) {
            assert.deepStrictEqual(arrivals.map((h) => h.from), ["a", "b"], `${id}: from a, then from the survivor`)
          }
        }
        assert.isTrue(yield* b.isRunning, "the survivor runs")
        assert.strictEqual((yield* fetchJson(`${b.baseUrl}/health`)).status, 200)
        assert.strictEqual(yield* b.stderr, "")

        const invalid = yield* Effect.filter(
          receiver.hits,
          (hit) =>
            Effect.map(Effect.result(verify(hit.body, hit.headers, secrets.get(hit.path) ?? "")), Result.isFailure)
        )
        assert.strictEqual(invalid.length, 0, "every request is signed with its webhook's secret (D37, D39)")

        const kill = `a killed on arrival ${killed!.seq - phase2From} of the phase, with ${pendingAtKill} undelivered` +
          ` and ${heldByA.length} claimed by a`
        const byProcess2 = JSON.stringify(tally(receiver.hits.slice(phase2From)))
        console.log(
          `phase 2: ${EVENTS_2} events (${EVENTS_2 * WEBHOOKS} deliveries); ${kill}; b finished` +
            ` ${seconds(killedAt, finishedAt)} s after the kill; ${duplicates.length} delivered twice;` +
            ` by process ${byProcess2}`
        )
      }).pipe(Effect.provide(NodeServices.layer)),
    300_000
  )
})
