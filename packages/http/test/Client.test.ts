/**
 * The typed client (`makeClient`) on the success path of every endpoint, in one scenario a host could follow:
 * results are core's models (timestamps as `DateTime`), lists carry the D17 envelope.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { makeClient } from "../src/Client.js"
import { processed, tenant, testServer, userOf } from "./Harness.js"

layer(testServer("client"), { excludeTestServices: true })("typed client", (it) => {
  it.effect("every endpoint's success path", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const { client } = owner
      const user = yield* userOf(owner)

      const company = yield* client.companies.create({ payload: { name: "Globex" } })
      assert.isTrue(DateTime.isDateTime(company.created_at))
      yield* client.companies.update({ params: { id: company.id }, payload: { domain: "globex.test" } })
      assert.strictEqual((yield* client.companies.get({ params: { id: company.id } })).domain, "globex.test")
      assert.strictEqual((yield* client.companies.list({ query: {} })).meta.total, 1)

      const customer = yield* client.customers.create({
        payload: { email: "ada@example.test", company_id: company.id }
      })
      yield* client.customers.update({ params: { id: customer.id }, payload: { first_name: "Ada" } })
      assert.strictEqual((yield* client.customers.get({ params: { id: customer.id } })).first_name, "Ada")
      assert.strictEqual((yield* client.customers.list({ query: { company_id: company.id } })).meta.total, 1)

      const agent = yield* client.agents.create({ payload: { name: "Bot" } })
      yield* client.agents.update({ params: { id: agent.id }, payload: { tone: "friendly" } })
      assert.strictEqual((yield* client.agents.get({ params: { id: agent.id } })).tone, "friendly")
      assert.strictEqual((yield* client.agents.list({ query: { is_active: true } })).meta.total, 1)

      const conversation = yield* client.conversations.create({
        payload: { customer_id: customer.id, agent_id: agent.id, assignee_id: user.id }
      })
      yield* client.conversations.update({ params: { id: conversation.id }, payload: { priority: "high" } })
      assert.strictEqual((yield* client.conversations.get({ params: { id: conversation.id } })).priority, "high")
      assert.strictEqual((yield* client.conversations.list({ query: { assignee_id: user.id } })).meta.total, 1)

      const message = yield* client.messages.create({
        params: { id: conversation.id },
        payload: { sender_type: "user", sender_id: user.id, content: "Hello" }
      })
      assert.strictEqual((yield* client.messages.list({ query: { sender_type: "user" } })).data[0]!.id, message.id)

      const text = yield* client.training.create({ payload: { type: "text", content: "Refunds take 5 days." } })
      const { data: [url] } = yield* client.training.processUrls({ payload: { urls: ["https://example.test/help"] } })
      yield* processed(client, url!.id)
      yield* client.training.update({ params: { id: text.id }, payload: { agent_ids: [agent.id] } })
      assert.deepStrictEqual((yield* client.training.get({ params: { id: text.id } })).agent_ids, [agent.id])
      assert.strictEqual((yield* client.training.list({ query: { type: "url" } })).meta.total, 1)
      assert.isTrue((yield* client.training.urlExists({ query: { url: "https://example.test/help/" } })).exists)
      const resync = yield* client.training.resync({ params: { id: url!.id } })
      assert.deepStrictEqual(resync.data, { training_data_id: url!.id, urls_count: 1 })

      const article = yield* client.kb.create({ payload: { translations: [{ locale: "en", title: "v1" }] } })
      yield* client.kb.update({ params: { id: article.id }, payload: { position: 1 } })
      yield* client.kb.putTranslation({ params: { id: article.id, locale: "en" }, payload: { title: "v2" } })
      const revisions = yield* client.kb.listRevisions({ params: { id: article.id }, query: {} })
      const restored = yield* client.kb.restore({ params: { id: article.id, revisionId: revisions.data[0]!.id } })
      assert.strictEqual(restored.translations[0]!.title, "v1")
      assert.strictEqual((yield* client.kb.get({ params: { id: article.id } })).position, 1)
      assert.strictEqual((yield* client.kb.list({ query: {} })).meta.total, 1)

      const events = yield* client.events.list({ query: { event: "conversation.user.message.created" } })
      assert.deepStrictEqual(events.data.map((e) => e.data.conversation_id), [conversation.id])

      yield* processed(client, url!.id)
      yield* client.messages.delete({ params: { id: message.id } })
      yield* client.conversations.delete({ params: { id: conversation.id } })
      yield* client.training.delete({ params: { id: text.id } })
      yield* client.agents.delete({ params: { id: agent.id } })
      yield* client.customers.delete({ params: { id: customer.id } })
      yield* client.companies.delete({ params: { id: company.id } })
      assert.strictEqual((yield* client.companies.list({ query: {} })).meta.total, 0)
    }))
})

/** A loopback server that answers every request with 200 and a body of the wrong shape. */
const wrongShapeServer = Effect.acquireRelease(
  Effect.callback<Server>((resume) => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ unexpected: true }))
    })
    server.listen(0, "127.0.0.1", () => {
      resume(Effect.succeed(server))
    })
  }),
  (server) =>
    Effect.callback<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

describe("typed client, answers it cannot read", () => {
  it.effect("a malformed answer stays a SchemaError (v3: ParseError): it is not the caller's input that is wrong", () =>
    Effect.gen(function*() {
      const server = yield* wrongShapeServer
      const { port } = server.address() as AddressInfo
      const client = yield* makeClient({ baseUrl: `http://127.0.0.1:${port}`, token: "t" })
      const error = yield* Effect.flip(client.companies.list({ query: {} }))
      assert.strictEqual(error._tag, "SchemaError")
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
