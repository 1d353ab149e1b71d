/**
 * The typed client (`makeClient`) on the success path of every endpoint, in one scenario a host could follow:
 * results are core's models (timestamps as `DateTime`), lists carry the D17 envelope.
 */
import { FetchHttpClient } from "@effect/platform"
import { assert, describe, it, layer } from "@effect/vitest"
import { DateTime, Effect } from "effect"
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
      yield* client.companies.update({ path: { id: company.id }, payload: { domain: "globex.test" } })
      assert.strictEqual((yield* client.companies.get({ path: { id: company.id } })).domain, "globex.test")
      assert.strictEqual((yield* client.companies.list({ urlParams: {} })).meta.total, 1)

      const customer = yield* client.customers.create({
        payload: { email: "ada@example.test", company_id: company.id }
      })
      yield* client.customers.update({ path: { id: customer.id }, payload: { first_name: "Ada" } })
      assert.strictEqual((yield* client.customers.get({ path: { id: customer.id } })).first_name, "Ada")
      assert.strictEqual((yield* client.customers.list({ urlParams: { company_id: company.id } })).meta.total, 1)

      const agent = yield* client.agents.create({ payload: { name: "Bot" } })
      yield* client.agents.update({ path: { id: agent.id }, payload: { tone: "friendly" } })
      assert.strictEqual((yield* client.agents.get({ path: { id: agent.id } })).tone, "friendly")
      assert.strictEqual((yield* client.agents.list({ urlParams: { is_active: true } })).meta.total, 1)

      const conversation = yield* client.conversations.create({
        payload: { customer_id: customer.id, agent_id: agent.id, assignee_id: user.id }
      })
      yield* client.conversations.update({ path: { id: conversation.id }, payload: { priority: "high" } })
      assert.strictEqual((yield* client.conversations.get({ path: { id: conversation.id } })).priority, "high")
      assert.strictEqual((yield* client.conversations.list({ urlParams: { assignee_id: user.id } })).meta.total, 1)

      const message = yield* client.messages.create({
        path: { id: conversation.id },
        payload: { sender_type: "user", sender_id: user.id, content: "Hello" }
      })
      assert.strictEqual((yield* client.messages.list({ urlParams: { sender_type: "user" } })).data[0]!.id, message.id)

      const text = yield* client.training.create({ payload: { type: "text", content: "Refunds take 5 days." } })
      const { data: [url] } = yield* client.training.processUrls({ payload: { urls: ["https://example.test/help"] } })
      yield* processed(client, url!.id)
      yield* client.training.update({ path: { id: text.id }, payload: { agent_ids: [agent.id] } })
      assert.deepStrictEqual((yield* client.training.get({ path: { id: text.id } })).agent_ids, [agent.id])
      assert.strictEqual((yield* client.training.list({ urlParams: { type: "url" } })).meta.total, 1)
      assert.isTrue((yield* client.training.urlExists({ urlParams: { url: "https://example.test/help/" } })).exists)
      const resync = yield* client.training.resync({ path: { id: url!.id } })
      assert.deepStrictEqual(resync.data, { training_data_id: url!.id, urls_count: 1 })

      const article = yield* client.kb.create({ payload: { translations: [{ locale: "en", title: "v1" }] } })
      yield* client.kb.update({ path: { id: article.id }, payload: { position: 1 } })
      yield* client.kb.putTranslation({ path: { id: article.id, locale: "en" }, payload: { title: "v2" } })
      const revisions = yield* client.kb.listRevisions({ path: { id: article.id }, urlParams: {} })
      const restored = yield* client.kb.restore({ path: { id: article.id, revisionId: revisions.data[0]!.id } })
      assert.strictEqual(restored.translations[0]!.title, "v1")
      assert.strictEqual((yield* client.kb.get({ path: { id: article.id } })).position, 1)
      assert.strictEqual((yield* client.kb.list({ urlParams: {} })).meta.total, 1)

      const events = yield* client.events.list({ urlParams: { event: "conversation.user.message.created" } })
      assert.deepStrictEqual(events.data.map((e) => e.data.conversation_id), [conversation.id])

      yield* processed(client, url!.id)
      yield* client.messages.delete({ path: { id: message.id } })
      yield* client.conversations.delete({ path: { id: conversation.id } })
      yield* client.training.delete({ path: { id: text.id } })
      yield* client.agents.delete({ path: { id: agent.id } })
      yield* client.customers.delete({ path: { id: customer.id } })
      yield* client.companies.delete({ path: { id: company.id } })
      assert.strictEqual((yield* client.companies.list({ urlParams: {} })).meta.total, 0)
    }))
})

/** A loopback server that answers every request with 200 and a body of the wrong shape. */
const wrongShapeServer = Effect.acquireRelease(
  Effect.async<Server>((resume) => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ unexpected: true }))
    })
    server.listen(0, "127.0.0.1", () => {
      resume(Effect.succeed(server))
    })
  }),
  (server) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

describe("typed client, answers it cannot read", () => {
  it.scoped("a malformed answer stays a ParseError: it is not the caller's input that is wrong", () =>
    Effect.gen(function*() {
      const server = yield* wrongShapeServer
      const { port } = server.address() as AddressInfo
      const client = yield* makeClient({ baseUrl: `http://127.0.0.1:${port}`, token: "t" })
      const error = yield* Effect.flip(client.companies.list({ urlParams: {} }))
      assert.strictEqual(error._tag, "ParseError")
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
