/**
 * Random JSON bodies on every POST and PUT endpoint (bounded fast-check runs): never a 5xx, every failure in a
 * documented shape, and a refused request writes nothing (no row, no event, the target unchanged).
 */
import { assert, layer } from "@effect/vitest"
import {
  AskAgent,
  CreateAgent,
  CreateArticle,
  CreateCompany,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CreateTrainingData,
  CreateWebhook,
  ProcessUrls,
  PutTranslation,
  RecoverWebhook,
  RotateWebhookSecret,
  SuggestReply,
  SummarizeConversation,
  UpdateAgent,
  UpdateArticle,
  UpdateCompany,
  UpdateConversation,
  UpdateCustomer,
  UpdateTrainingData,
  UpdateWebhook
} from "@support-engine/core"
import { Effect, Schedule } from "effect"
import type { HttpServer } from "effect/http"
import fc from "fast-check"
import { ENDPOINTS } from "./Endpoints.js"
import { engineLayer, fanOut, raw, serverLayer, type Tenant, tenant, userOf } from "./Harness.js"

const RUNS = 20

const COLLECTIONS = [
  "/v1/events",
  "/v1/companies",
  "/v1/customers",
  "/v1/agents",
  "/v1/conversations",
  "/v1/messages",
  "/v1/training-data",
  "/v1/kb-articles",
  "/v1/webhooks"
]

/** Waits until the training worker has nothing queued or in progress, so it changes nothing mid-check (D31). */
const trainingIdle = (token: string) =>
  Effect.forEach(
    ["queued", "processing"],
    (status) =>
      Effect.map(raw("GET", `/v1/training-data?status=${status}`, { token }), (r) =>
        (r.body as { meta: { total: number } }).meta.total)
  ).pipe(
    Effect.filterOrFail((totals) =>
      totals.every((n) => n === 0)
    ),
    Effect.retry(Schedule.spaced("20 millis")),
    Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.fail(new Error("training never settled")) }),
    Effect.orDie
  )

/** What a refused request must leave as it was: every list's total and newest item, and the targets. */
const snapshot = (token: string, targets: ReadonlyArray<string>) =>
  Effect.forEach(
    [...COLLECTIONS.map((path) => `${path}?per_page=1`), ...targets],
    (path) =>
      Effect.map(raw("GET", path, { token }), (response) => {
        assert.strictEqual(response.status, 200, path)
        return response.text
      })
  )

const isEnvelope = (body: unknown) =>
  typeof body === "object" && body !== null && "error" in body && "code" in body && "errors" in body
const isValidation = (body: unknown) =>
  typeof body === "object" && body !== null && "message" in body && "errors" in body

// Hundreds of requests a second from one token: rate limits (D52) off, or the fuzzing would meet 429s.
const fuzzServer = serverLayer(engineLayer("fuzz"), { rateLimits: { perSecond: 0, burst: 0 } })

layer(fuzzServer, { excludeTestServices: true })("fuzz", (it) => {
  const setup = Effect.gen(function*() {
    const owner: Tenant = yield* tenant()
    const { client } = owner
    const user = yield* userOf(owner)
    const company = yield* client.companies.create({ payload: { name: "Globex" } })
    const customer = yield* client.customers.create({ payload: { email: "ada@example.test" } })
    const agent = yield* client.agents.create({ payload: { name: "Bot" } })
    const conversation = yield* client.conversations.create({ payload: { customer_id: customer.id } })
    const text = yield* client.training.create({ payload: { type: "text", content: "x" } })
    const url = (yield* client.training.processUrls({ payload: { urls: ["https://example.test/docs"] } })).data[0]!
    yield* trainingIdle(owner.token)
    const article = yield* client.kb.create({ payload: { translations: [{ locale: "en", title: "Refunds" }] } })
    yield* client.kb.putTranslation({ params: { id: article.id, locale: "en" }, payload: { title: "Refunds 2" } })
    const revision = (yield* client.kb.listRevisions({ params: { id: article.id }, query: {} })).data[0]!
    const webhook = yield* client.webhooks.create({
      payload: { url: "https://hooks.example.test/x", events: ["customer.created"] }
    })
    yield* client.customers.create({ payload: { email: "bo@example.test" } })
    yield* fanOut
    const delivery = (yield* client.webhooks.deliveries({ params: { id: webhook.id }, query: {} })).data[0]!
    /** Values that are sometimes exactly right, so that some random bodies pass validation and write. */
    const pool = [
      user.id,
      company.id,
      customer.id,
      agent.id,
      conversation.id,
      "00000000-0000-4000-8000-000000000000",
      "chat",
      "email",
      "open",
      "closed",
      "urgent",
      "user",
      "agent",
      "customer",
      "system",
      "https://example.test/a.png",
      "https://hooks.example.test/y",
      "http://127.0.0.1/hook",
      "*",
      "customer.created",
      "text",
      "qa",
      "url",
      "video",
      "2026-11-21T15:07:00.123+00:00",
      "",
      "true",
      "10"
    ]
    return {
      owner,
      user,
      company,
      customer,
      agent,
      conversation,
      text,
      url,
      article,
      revision,
      webhook,
      delivery,
      pool
    }
  })

  const cases = (f: Effect.Success<typeof setup>) =>
    [
      { method: "POST", path: "/v1/companies", fields: Object.keys(CreateCompany.fields), base: { name: "Co" } },
      { method: "PUT", path: `/v1/companies/${f.company.id}`, fields: Object.keys(UpdateCompany.fields), base: {} },
      { method: "POST", path: "/v1/customers", fields: Object.keys(CreateCustomer.fields), base: { first_name: "A" } },
      { method: "PUT", path: `/v1/customers/${f.customer.id}`, fields: Object.keys(UpdateCustomer.fields), base: {} },
      { method: "POST", path: "/v1/agents", fields: Object.keys(CreateAgent.fields), base: { name: "Bot" } },
      { method: "PUT", path: `/v1/agents/${f.agent.id}`, fields: Object.keys(UpdateAgent.fields), base: {} },
      {
        method: "POST",
        path: `/v1/agents/${f.agent.id}/ask`,
        fields: Object.keys(AskAgent.fields),
        base: { question: "refund", channel: "chat" }
      },
      {
        method: "POST",
        path: "/v1/conversations",
        fields: Object.keys(CreateConversation.fields),
        base: { customer_id: f.customer.id }
      },
      {
        method: "PUT",
        path: `/v1/conversations/${f.conversation.id}`,
        fields: Object.keys(UpdateConversation.fields),
        base: {}
      },
      {
        method: "POST",
        path: `/v1/conversations/${f.conversation.id}/messages`,
        fields: Object.keys(CreateMessage.fields),
        base: { sender_type: "system", content: "Hello" }
      },
      {
        method: "POST",
        path: `/v1/conversations/${f.conversation.id}/suggest-reply`,
        fields: Object.keys(SuggestReply.fields),
        base: { agent_id: f.agent.id }
      },
      {
        method: "POST",
        path: `/v1/conversations/${f.conversation.id}/summarize`,
        fields: Object.keys(SummarizeConversation.fields),
        base: { agent_id: f.agent.id }
      },
      {
        method: "POST",
        path: "/v1/training-data",
        fields: Object.keys(CreateTrainingData.fields),
        base: { type: "text", content: "Hello" }
      },
      {
        method: "POST",
        path: "/v1/training-data/url/process",
        fields: Object.keys(ProcessUrls.fields),
        base: { urls: ["https://example.test/a"] }
      },
      {
        method: "PUT",
        path: `/v1/training-data/${f.text.id}`,
        fields: Object.keys(UpdateTrainingData.fields),
        base: {}
      },
      { method: "POST", path: `/v1/training-data/${f.url.id}/resync-now`, fields: [], base: {} },
      {
        method: "POST",
        path: "/v1/kb-articles",
        fields: Object.keys(CreateArticle.fields),
        base: { translations: [{ locale: "en", title: "Hello" }] }
      },
      { method: "PUT", path: `/v1/kb-articles/${f.article.id}`, fields: Object.keys(UpdateArticle.fields), base: {} },
      {
        method: "PUT",
        path: `/v1/kb-articles/${f.article.id}/translations/en`,
        fields: Object.keys(PutTranslation.fields),
        base: {}
      },
      {
        method: "POST",
        path: `/v1/kb-articles/${f.article.id}/revisions/${f.revision.id}/restore`,
        fields: [],
        base: {}
      },
      {
        method: "POST",
        path: "/v1/webhooks",
        fields: Object.keys(CreateWebhook.fields),
        base: { url: "https://hooks.example.test/z", events: ["*"] }
      },
      { method: "PUT", path: `/v1/webhooks/${f.webhook.id}`, fields: Object.keys(UpdateWebhook.fields), base: {} },
      {
        method: "POST",
        path: `/v1/webhooks/${f.webhook.id}/rotate-secret`,
        fields: Object.keys(RotateWebhookSecret.fields),
        base: {}
      },
      { method: "POST", path: `/v1/webhooks/${f.webhook.id}/enable`, fields: [], base: {} },
      {
        method: "POST",
        path: `/v1/webhooks/${f.webhook.id}/deliveries/${f.delivery.id}/redeliver`,
        fields: [],
        base: {}
      },
      { method: "POST", path: `/v1/webhooks/${f.webhook.id}/ping`, fields: [], base: {} },
      {
        method: "POST",
        path: `/v1/webhooks/${f.webhook.id}/recover`,
        fields: Object.keys(RecoverWebhook.fields),
        base: { since: "2026-01-01T00:00:00Z" }
      },
      // Last: it takes the fixture's customer and conversation with it (a body is ignored; then 404).
      { method: "POST", path: `/v1/customers/${f.customer.id}/erase`, fields: [], base: {} }
    ] as const

  it.effect("covers every POST and PUT endpoint", () =>
    Effect.gen(function*() {
      const f = yield* setup
      const fuzzed = new Set(
        cases(f).map((c) =>
          `${c.method} ${
            c.path.replace(/\/revisions\/[0-9a-f-]{36}\//, "/revisions/{revisionId}/")
              .replace(/\/deliveries\/[0-9a-f-]{36}\//, "/deliveries/{deliveryId}/").replace(/[0-9a-f-]{36}/g, "{id}")
              .replace(/\/translations\/en$/, "/translations/{locale}")
          }`
        )
      )
      for (const endpoint of ENDPOINTS.filter((e) => e.method === "POST" || e.method === "PUT")) {
        assert.isTrue(fuzzed.has(`${endpoint.method} ${endpoint.path}`), `${endpoint.method} ${endpoint.path}`)
      }
    }))

  it.effect("random JSON bodies: never a 5xx, never a partial write", () =>
    Effect.gen(function*() {
      const f = yield* setup
      const run = Effect.runPromiseWith(yield* Effect.context<HttpServer.HttpServer>())
      const { token } = f.owner
      for (const c of cases(f)) {
        const value: fc.Arbitrary<unknown> = fc.oneof(
          fc.jsonValue({ maxDepth: 2 }),
          fc.constantFrom(...f.pool),
          fc.string({ maxLength: 600 }),
          fc.integer({ min: -5, max: 2000 }),
          fc.array(
            fc.record({
              phrase: fc.oneof(fc.string(), fc.constant("")),
              channel: fc.constantFrom("email", "chat", "fax"),
              rule: fc.string(),
              escalate_to: fc.constantFrom(...f.pool)
            }, { requiredKeys: [] }),
            { maxLength: 3 }
          ),
          fc.array(fc.constantFrom(...f.pool), { maxLength: 3 })
        )
        const key = fc.oneof(
          { weight: 6, arbitrary: c.fields.length === 0 ? fc.string() : fc.constantFrom(...c.fields) },
          { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "id", "workspace_id", "created_at") },
          { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }
        )
        // Bodies as text, so keys such as "__proto__" arrive as JSON keys rather than as prototype changes. Half
        // of them start from a valid body, so that business rules (400s) are reached and not only validation.
        const objectBody = fc.tuple(fc.boolean(), fc.array(fc.tuple(key, value), { maxLength: 6 })).map(
          ([fromBase, entries]) => {
            const all: Array<readonly [string, unknown]> = [...(fromBase ? Object.entries(c.base) : []), ...entries]
            return `{${all.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`).join(",")}}`
          }
        )
        const body = fc.oneof(
          { weight: 8, arbitrary: objectBody },
          { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? "null") }
        )
        const article = `/v1/kb-articles/${f.article.id}`
        const webhook = `/v1/webhooks/${f.webhook.id}`
        const targets = c.path.startsWith(article)
          ? [article, `${article}/revisions?per_page=5`]
          : c.path.startsWith(webhook)
          ? [webhook, `${webhook}/deliveries?per_page=5`]
          : c.path.endsWith("/resync-now")
          ? [c.path.replace("/resync-now", "")]
          : c.method === "PUT"
          ? [c.path]
          : []
        const property = fc.asyncProperty(body, (text) =>
          run(Effect.gen(function*() {
            const before = yield* snapshot(token, targets)
            const response = yield* raw(c.method, c.path, {
              token,
              body: text,
              headers: { "content-type": "application/json" }
            })
            const label = `${c.method} ${c.path} ${text} -> ${response.status} ${response.text}`
            assert.isBelow(response.status, 500, label)
            if (c.path.startsWith("/v1/training-data") && response.status < 300) yield* trainingIdle(token)
            if (response.status >= 300) {
              assert.isTrue(isEnvelope(response.body) || isValidation(response.body), label)
              const after = yield* snapshot(token, targets)
              assert.deepStrictEqual(after, before, label)
            }
          })))
        yield* Effect.promise(() => fc.assert(property, { numRuns: RUNS }))
      }
    }), { timeout: 240_000 })
})
