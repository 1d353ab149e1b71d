/**
 * Workspace isolation (D11): a token of another workspace gets exactly the 404 of a missing id on every read and
 * write endpoint that names a resource, changes nothing, and sees none of the owner's resources in lists.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { concrete, ENDPOINTS } from "./Endpoints.js"
import { fanOut, processed, raw, type Tenant, tenant, testServer } from "./Harness.js"

const missing = "00000000-0000-4000-8000-000000000000"

/** One resource of each kind in `owner`'s workspace. */
const fixtures = (owner: Tenant) =>
  Effect.gen(function*() {
    const { client } = owner
    const company = yield* client.companies.create({ payload: { name: "Globex" } })
    const customer = yield* client.customers.create({ payload: { email: "ada@example.test" } })
    const agent = yield* client.agents.create({ payload: { name: "Bot" } })
    const conversation = yield* client.conversations.create({ payload: { customer_id: customer.id } })
    const message = yield* client.messages.create({
      params: { id: conversation.id },
      payload: { sender_type: "system", content: "Hello" }
    })
    const created = yield* client.training.create({ payload: { type: "text", content: "Refunds take 5 days." } })
    // Settled first, so that the background worker does not change it while isolation is checked.
    const training = yield* processed(client, created.id)
    const article = yield* client.kb.create({ payload: { translations: [{ locale: "en", title: "Refunds" }] } })
    const revised = yield* client.kb.putTranslation({
      params: { id: article.id, locale: "en" },
      payload: { title: "Refunds, revised" }
    })
    const revision = (yield* client.kb.listRevisions({ params: { id: article.id }, query: {} })).data[0]!
    const webhook = yield* client.webhooks.create({
      payload: { url: "https://hooks.example.test/x", events: ["customer.created"] }
    })
    yield* client.customers.create({ payload: { email: "bo@example.test" } })
    yield* fanOut
    const delivery = (yield* client.webhooks.deliveries({ params: { id: webhook.id }, query: {} })).data[0]!
    return { company, customer, agent, conversation, message, training, article: revised, revision, webhook, delivery }
  })

interface Case {
  readonly method: string
  readonly path: (id: string) => string
  readonly id: string
  readonly json?: unknown
  /** Where the owner reads the resource back, to see that nothing changed. */
  readonly readBack: string
}

layer(testServer("isolation"), { excludeTestServices: true })("isolation", (it) => {
  it.effect("another workspace's token: the same 404 as a missing id, and nothing changes", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const stranger = yield* tenant()
      const f = yield* fixtures(owner)
      const strangerArticle = yield* stranger.client.kb.create({
        payload: { translations: [{ locale: "en", title: "Mine" }] }
      })
      const strangerWebhook = yield* stranger.client.webhooks.create({
        payload: { url: "https://hooks.example.test/y", events: ["*"] }
      })
      const webhook = `/v1/webhooks/${f.webhook.id}`
      const deliveries = `/v1/webhooks/${f.webhook.id}/deliveries`
      const article = `/v1/kb-articles/${f.article.id}`
      const revisions = `/v1/kb-articles/${f.article.id}/revisions`
      const byId = (collection: string, id: string, json: unknown): ReadonlyArray<Case> => [
        { method: "GET", path: (x) => `/v1/${collection}/${x}`, id, readBack: `/v1/${collection}/${id}` },
        { method: "PUT", path: (x) => `/v1/${collection}/${x}`, id, json, readBack: `/v1/${collection}/${id}` },
        { method: "DELETE", path: (x) => `/v1/${collection}/${x}`, id, readBack: `/v1/${collection}/${id}` }
      ]
      const cases: ReadonlyArray<Case> = [
        ...byId("companies", f.company.id, { name: "Hijacked" }),
        ...byId("customers", f.customer.id, { first_name: "Hijacked" }),
        ...byId("agents", f.agent.id, { name: "Hijacked" }),
        {
          method: "POST",
          path: (x) => `/v1/agents/${x}/ask`,
          id: f.agent.id,
          json: { question: "hello", channel: "chat" },
          readBack: `/v1/agents/${f.agent.id}`
        },
        ...byId("conversations", f.conversation.id, { status: "closed" }),
        ...["suggest-reply", "summarize"].map((action): Case => ({
          method: "POST",
          path: (x) => `/v1/conversations/${x}/${action}`,
          id: f.conversation.id,
          json: { agent_id: f.agent.id },
          readBack: `/v1/messages?conversation_id=${f.conversation.id}`
        })),
        ...byId("training-data", f.training.id, { title: "Hijacked" }),
        {
          method: "POST",
          path: (x) => `/v1/training-data/${x}/resync-now`,
          id: f.training.id,
          readBack: `/v1/training-data/${f.training.id}`
        },
        {
          method: "POST",
          path: (x) => `/v1/conversations/${x}/messages`,
          id: f.conversation.id,
          json: { sender_type: "system", content: "Hijacked" },
          readBack: `/v1/messages?conversation_id=${f.conversation.id}`
        },
        { method: "GET", path: (x) => `/v1/kb-articles/${x}`, id: f.article.id, readBack: article },
        {
          method: "PUT",
          path: (x) => `/v1/kb-articles/${x}`,
          id: f.article.id,
          json: { status: "published" },
          readBack: article
        },
        {
          method: "PUT",
          path: (x) => `/v1/kb-articles/${x}/translations/en`,
          id: f.article.id,
          json: { title: "Hijacked" },
          readBack: article
        },
        { method: "GET", path: (x) => `/v1/kb-articles/${x}/revisions`, id: f.article.id, readBack: revisions },
        {
          method: "GET",
          path: (x) => `/v1/customers/${x}/export`,
          id: f.customer.id,
          readBack: `/v1/customers/${f.customer.id}/export`
        },
        {
          method: "POST",
          path: (x) => `/v1/customers/${x}/erase`,
          id: f.customer.id,
          readBack: `/v1/customers/${f.customer.id}/export`
        },
        {
          method: "POST",
          path: (x) => `/v1/kb-articles/${x}/revisions/${f.revision.id}/restore`,
          id: f.article.id,
          readBack: article
        },
        {
          // The stranger's own article with the owner's revision: the revision is as unknown as a missing one.
          method: "POST",
          path: (x) => `/v1/kb-articles/${strangerArticle.id}/revisions/${x}/restore`,
          id: f.revision.id,
          readBack: revisions
        },
        ...byId("webhooks", f.webhook.id, { description: "Hijacked" }),
        {
          method: "POST",
          path: (x) => `/v1/webhooks/${x}/recover`,
          id: f.webhook.id,
          json: { since: "2020-01-01T00:00:00Z" },
          readBack: deliveries
        },
        { method: "POST", path: (x) => `/v1/webhooks/${x}/ping`, id: f.webhook.id, readBack: deliveries },
        ...["rotate-secret", "enable"].map((action): Case => ({
          method: "POST",
          path: (x) => `/v1/webhooks/${x}/${action}`,
          id: f.webhook.id,
          readBack: webhook
        })),
        { method: "GET", path: (x) => `/v1/webhooks/${x}/deliveries`, id: f.webhook.id, readBack: deliveries },
        {
          method: "POST",
          path: (x) => `/v1/webhooks/${x}/deliveries/${f.delivery.id}/redeliver`,
          id: f.webhook.id,
          readBack: deliveries
        },
        {
          method: "POST",
          path: (x) => `/v1/webhooks/${strangerWebhook.id}/deliveries/${x}/redeliver`,
          id: f.delivery.id,
          readBack: deliveries
        },
        {
          method: "DELETE",
          path: (x) => `/v1/messages/${x}`,
          id: f.message.id,
          readBack: `/v1/messages?conversation_id=${f.conversation.id}`
        }
      ]
      const template = (path: string) =>
        path.replace(/\/translations\/en$/, "/translations/{locale}").replace(
          /\/revisions\/[0-9a-f-]{36}\/restore$/,
          "/revisions/{revisionId}/restore"
        ).replace(/\/kb-articles\/[0-9a-f-]{36}\//, "/kb-articles/{id}/").replace(
          /\/deliveries\/[0-9a-f-]{36}\/redeliver$/,
          "/deliveries/{deliveryId}/redeliver"
        )
      const covered = new Set(cases.map((c) => `${c.method} ${template(c.path("{id}"))}`))
      for (const endpoint of ENDPOINTS.filter((e) => e.path.includes("{id}"))) {
        assert.isTrue(covered.has(`${endpoint.method} ${endpoint.path}`), `${endpoint.method} ${endpoint.path}`)
      }
      for (const c of cases) {
        const before = yield* raw("GET", c.readBack, { token: owner.token })
        const foreign = yield* raw(c.method, c.path(c.id), { token: stranger.token, json: c.json })
        const absent = yield* raw(c.method, c.path(missing), { token: stranger.token, json: c.json })
        const label = `${c.method} ${c.path("{id}")}`
        assert.strictEqual(foreign.status, 404, label)
        assert.strictEqual(foreign.text, absent.text, label)
        const after = yield* raw("GET", c.readBack, { token: owner.token })
        assert.strictEqual(after.status, 200, label)
        assert.strictEqual(after.text, before.text, label)
      }
    }))

  it.effect("lists and the event log show only the token's own workspace", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const stranger = yield* tenant()
      yield* fixtures(owner)
      for (const endpoint of ENDPOINTS.filter((e) => e.list)) {
        const mine = yield* raw("GET", endpoint.path, { token: owner.token })
        const theirs = yield* raw("GET", endpoint.path, { token: stranger.token })
        assert.isAbove((mine.body as { meta: { total: number } }).meta.total, 0, endpoint.path)
        assert.deepStrictEqual((theirs.body as { data: unknown }).data, [], endpoint.path)
        assert.strictEqual((theirs.body as { meta: { total: number } }).meta.total, 0, endpoint.path)
      }
    }))

  it.effect("every endpoint answers 401 without a token and 403 to a read token on writes (D10)", () =>
    Effect.gen(function*() {
      const reader = yield* tenant(["external-api:read"])
      for (const endpoint of ENDPOINTS) {
        const label = `${endpoint.method} ${endpoint.path}`
        const json = endpoint.method === "GET" ? undefined : {}
        const anonymous = yield* raw(endpoint.method, concrete(endpoint.path), { json })
        assert.strictEqual(anonymous.status, 401, label)
        const read = yield* raw(endpoint.method, concrete(endpoint.path), { token: reader.token, json })
        if (endpoint.method === "GET" || endpoint.reads) assert.notStrictEqual(read.status, 403, label)
        else assert.strictEqual(read.status, 403, label)
      }
    }))
})
