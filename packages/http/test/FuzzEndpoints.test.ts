/**
 * Property test over every endpoint (issue 16 item 6): random paths, ids, queries, headers and bodies, sent with
 * the write token of workspace A while workspace B holds one row of every kind. For every request: never a 5xx, and
 * nothing of B in the answer. After each endpoint's runs: every row of B reads exactly as before.
 *
 * The endpoints come from the OpenAPI document the HttpApi definition produces (FuzzInputs.ts), so a new endpoint is
 * fuzzed without touching this file. `SUPPORT_FUZZ_SEED` replays a failure (the seed is printed with it),
 * `SUPPORT_FUZZ_RUNS` sets the runs per endpoint. On SQLite always; on PostgreSQL too, with fewer runs, when
 * SUPPORT_TEST_PG_URL names a server.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Redacted, Schedule } from "effect"
import type { HttpServer } from "effect/http"
import fc from "fast-check"
import { type FuzzRequest, type Operation, OPERATIONS, type Pools, requestFor } from "./FuzzInputs.js"
import {
  baseUrl,
  engineLayer,
  engineOnUrl,
  fanOut,
  raw,
  serverLayer,
  type Tenant,
  tenant,
  type testServer,
  userOf
} from "./Harness.js"

const seed = Number(process.env["SUPPORT_FUZZ_SEED"] ?? Math.floor(Math.random() * 2 ** 31))
const runsFromEnv = process.env["SUPPORT_FUZZ_RUNS"]
const adminUrl = process.env["SUPPORT_TEST_PG_URL"]

/** The text B's rows carry, so that an answer to A holding any of it is caught even where no id shows. */
const MARKER = "VictimMarker"

/** Waits until the training worker has nothing queued or in progress for `token` (D31). */
const trainingIdle = (token: string) =>
  Effect.forEach(["queued", "processing"], (status) =>
    Effect.map(
      raw("GET", `/v1/training-data?status=${status}`, { token }),
      (r) => (r.body as { meta: { total: number } }).meta.total
    )).pipe(
      Effect.filterOrFail((totals) => totals.every((n) => n === 0)),
      Effect.retry(Schedule.spaced("20 millis")),
      Effect.timeoutOrElse({ duration: "20 seconds", orElse: () => Effect.fail(new Error("training never settled")) }),
      Effect.orDie
    )

/** One row of every kind in `owner`'s workspace, named with `label`; their ids. */
const fixtures = (owner: Tenant, label: string) =>
  Effect.gen(function*() {
    const { client } = owner
    const user = yield* userOf(owner)
    const company = yield* client.companies.create({ payload: { name: `${label} Globex` } })
    const customer = yield* client.customers.create({
      payload: { email: `${label.toLowerCase()}@example.test`, first_name: label, company_id: company.id }
    })
    const agent = yield* client.agents.create({ payload: { name: `${label} Bot` } })
    const conversation = yield* client.conversations.create({ payload: { customer_id: customer.id } })
    const message = yield* client.messages.create({
      params: { id: conversation.id },
      payload: { sender_type: "system", content: `${label} hello` }
    })
    const text = yield* client.training.create({ payload: { type: "text", content: `${label} text` } })
    const url = (yield* client.training.processUrls({ payload: { urls: [`https://example.test/${label}`] } })).data[0]!
    const article = yield* client.kb.create({
      payload: { translations: [{ locale: "en", title: `${label} Refunds` }] }
    })
    yield* client.kb.putTranslation({
      params: { id: article.id, locale: "en" },
      payload: { title: `${label} Refunds 2` }
    })
    const revision = (yield* client.kb.listRevisions({ params: { id: article.id }, query: {} })).data[0]!
    const webhook = yield* client.webhooks.create({
      payload: { url: `https://hooks.example.test/${label}`, events: ["customer.created"] }
    })
    yield* client.customers.create({ payload: { email: `${label.toLowerCase()}2@example.test` } })
    yield* fanOut
    const delivery = (yield* client.webhooks.deliveries({ params: { id: webhook.id }, query: {} })).data[0]!
    yield* trainingIdle(owner.token)
    return {
      workspace: owner.workspace.id,
      ids: [
        user.id,
        company.id,
        customer.id,
        agent.id,
        conversation.id,
        message.id,
        text.id,
        url.id,
        article.id,
        revision.id,
        webhook.id,
        delivery.id
      ],
      reads: [
        `/v1/companies/${company.id}`,
        `/v1/customers/${customer.id}`,
        `/v1/agents/${agent.id}`,
        `/v1/conversations/${conversation.id}`,
        `/v1/training-data/${text.id}`,
        `/v1/training-data/${url.id}`,
        `/v1/kb-articles/${article.id}`,
        `/v1/kb-articles/${article.id}/revisions?per_page=100`,
        `/v1/webhooks/${webhook.id}`,
        `/v1/webhooks/${webhook.id}/deliveries?per_page=100`
      ]
    }
  }).pipe(Effect.orDie)

/** Every row of a workspace as its token reads it: each list in full, and each fixture with its children. */
const snapshot = (token: string, reads: ReadonlyArray<string>) =>
  Effect.forEach(
    [
      ...[
        "events",
        "companies",
        "customers",
        "agents",
        "conversations",
        "messages",
        "training-data",
        "kb-articles",
        "webhooks"
      ].map((list) => `/v1/${list}?per_page=100`),
      ...reads
    ],
    (path) =>
      Effect.map(raw("GET", path, { token }), (response) => {
        assert.strictEqual(response.status, 200, path)
        return `${path} ${response.text}`
      })
  )

/** The answer without what echoes the request itself (list links repeat the query A sent). */
const answerText = (body: unknown, text: string): string => {
  if (typeof body !== "object" || body === null || !("links" in body)) return text
  const { links: _links, meta, ...rest } = body as { links: unknown; meta?: Record<string, unknown> }
  const { path: _path, ...metaRest } = meta ?? {}
  return JSON.stringify({ ...rest, meta: metaRest })
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** DELETEs last, so that the rows the other operations use are there while they run. */
const ordered: ReadonlyArray<Operation> = [...OPERATIONS].sort((a, b) =>
  Number(a.method === "DELETE") - Number(b.method === "DELETE")
)

type Served = Layer.Success<ReturnType<typeof testServer>>

const fuzzSuite = (name: string, server: Layer.Layer<Served>, runs: number) =>
  layer(server, { excludeTestServices: true })(name, (it) => {
    it.effect(
      `every endpoint, ${runs} random requests each (seed ${seed}): no 5xx, nothing of B read or changed`,
      () =>
        Effect.gen(function*() {
          const attacker = yield* tenant()
          const victim = yield* tenant()
          const mine = yield* fixtures(attacker, "Attacker")
          const theirs = yield* fixtures(victim, MARKER)
          const secrets = [theirs.workspace, ...theirs.ids]
          /** B's ids that A's requests have carried so far (see the check below). */
          const echoed = new Set<string>()
          const pools: Pools = {
            ids: [...mine.ids, ...theirs.ids, "00000000-0000-4000-8000-000000000000", mine.workspace, theirs.workspace],
            strings: [
              ...new Set(OPERATIONS.flatMap((o) => o.query.flatMap((q) => (q.schema.enum as Array<string>) ?? []))),
              "chat",
              "email",
              "open",
              "closed",
              "user",
              "agent",
              "customer",
              "system",
              "text",
              "url",
              "qa",
              "draft",
              "published",
              "en",
              "fr",
              "customer.created",
              "*",
              "https://hooks.example.test/fuzz",
              "https://example.test/a.png",
              "http://127.0.0.1/hook",
              "http://169.254.169.254/latest",
              "ada@example.test",
              "2026-11-21T15:07:00.123+00:00",
              "2026-11-21T15:07:00Z"
            ]
          }
          const before = yield* snapshot(victim.token, theirs.reads)
          const run = Effect.runPromiseWith(yield* Effect.context<HttpServer.HttpServer>())
          const base = yield* baseUrl
          /**
           * The request as fetch sends it; a connection the server closes (it may answer 413 or 415 before reading a
           * body, then close) is status 0, accepted only if the server still answers /health.
           */
          const send = (request: FuzzRequest) =>
            Effect.promise(async () => {
              try {
                const response = await fetch(`${base}${request.path}`, {
                  method: request.method,
                  headers: { ...request.headers, authorization: `Bearer ${attacker.token}` },
                  ...(request.body === undefined ? {} : { body: request.body })
                })
                const text = await response.text()
                return { status: response.status, text, body: parse(text) }
              } catch (error) {
                const health = await fetch(`${base}/health`)
                return { status: health.status === 200 ? 0 : 599, text: String(error), body: undefined }
              }
            })
          for (const [index, operation] of ordered.entries()) {
            const property = fc.asyncProperty(requestFor(operation, pools), (request) =>
              run(Effect.gen(function*() {
                const response = yield* send(request)
                const label = `${request.method} ${request.path} ${JSON.stringify(request.headers)} ${
                  request.body?.slice(0, 300)
                } -> ${response.status} ${response.text.slice(0, 300)}`
                assert.isBelow(response.status, 500, label)
                const answer = answerText(response.body, response.text)
                // B's ids that A has sent itself, in this request or an earlier one, may come back (a name it
                // chose, a free-text field it set, stored and listed later); any other is a leak. B's names hold
                // MARKER, which A never sends, so a leaked record of B is caught by it whatever ids A sent.
                const sent = `${request.path} ${JSON.stringify(request.headers)} ${request.body ?? ""}`
                for (const secret of secrets) if (sent.includes(secret)) echoed.add(secret)
                for (const secret of [...secrets, MARKER]) {
                  if (!echoed.has(secret)) assert.notInclude(answer, secret, label)
                }
              })))
            const result = yield* Effect.promise(() =>
              fc.check(property, { seed: seed + index, numRuns: runs, endOnFailure: false })
            )
            if (result.failed) {
              assert.fail(
                `${operation.method} ${operation.path}: reproduce with SUPPORT_FUZZ_SEED=${seed}\n` +
                  fc.defaultReportMessage(result)
              )
            }
            if (operation.method !== "GET") {
              assert.deepStrictEqual(
                yield* snapshot(victim.token, theirs.reads),
                before,
                `${operation.method} ${operation.path} changed workspace B (SUPPORT_FUZZ_SEED=${seed})`
              )
            }
          }
        }),
      { timeout: 300_000 }
    )
  })

// Rate limits (D52) off: one token sends thousands of requests.
const noLimits = { rateLimits: { perSecond: 0, burst: 0 } }

describe("fuzz every endpoint (issue 16 item 6)", () => {
  fuzzSuite(
    "SQLite",
    serverLayer(engineLayer("fuzz-endpoints"), noLimits),
    Number(runsFromEnv ?? 40)
  )
  if (adminUrl !== undefined) {
    const admin = adminUrl
    const onAdmin = (statement: string) =>
      Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(statement)).pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(admin), maxConnections: 1 })),
        Effect.scoped,
        Effect.orDie
      )
    // A database of its own, dropped after (finalizers run in reverse: the engine closes first).
    const pgEngine = Layer.unwrap(Effect.gen(function*() {
      const name = `support_engine_fuzz_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
      yield* Effect.acquireRelease(
        onAdmin(`CREATE DATABASE ${name}`),
        () => onAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      )
      const url = new URL(admin)
      url.pathname = `/${name}`
      return engineOnUrl(url.toString())
    }))
    fuzzSuite("PostgreSQL", serverLayer(pgEngine, noLimits), Number(runsFromEnv ?? 8))
  }
})
