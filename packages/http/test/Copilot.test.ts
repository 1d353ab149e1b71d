/** `POST /v1/conversations/{id}/suggest-reply` and `/summarize` end to end with the local model (D61). */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { processed, raw, tenant, testServer, userOf } from "./Harness.js"

const post = (token: string, path: string, json: unknown) =>
  Effect.map(raw("POST", path, { token, json }), (r) => ({ status: r.status, body: r.body as Record<string, unknown> }))

layer(testServer("copilot"), { excludeTestServices: true })("copilot", (it) => {
  it.effect("D61: a read token gets a suggested reply with citations and a summary; nothing is stored", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const agent = yield* owner.client.agents.create({ payload: { name: "Helper" } })
      const item = yield* owner.client.training.create({
        payload: { type: "text", title: "Refund policy", content: "Refunds are paid back within five working days." }
      })
      yield* processed(owner.client, item.id)
      const customer = yield* owner.client.customers.create({ payload: { email: "ada@example.com" } })
      const conversation = yield* owner.client.conversations.create({ payload: { customer_id: customer.id } })
      const reader = yield* tenant(["external-api:read"])
      const path = `/v1/conversations/${conversation.id}`
      // Before the customer wrote: nothing to answer, nothing to sum up.
      assert.deepStrictEqual((yield* post(owner.token, `${path}/suggest-reply`, { agent_id: agent.id })).body, {
        suggestion: null,
        citations: [],
        escalation: null
      })
      assert.deepStrictEqual((yield* post(owner.token, `${path}/summarize`, { agent_id: agent.id })).body, {
        summary: ""
      })
      yield* owner.client.messages.create({
        params: { id: conversation.id },
        payload: { sender_type: "customer", sender_id: customer.id, content: "How long do refunds take?" }
      })
      const suggested = yield* post(owner.token, `${path}/suggest-reply`, { agent_id: agent.id })
      assert.deepStrictEqual(suggested, {
        status: 200,
        body: {
          suggestion: "Refunds are paid back within five working days.",
          citations: [{ type: "training_data", id: item.id, title: "Refund policy", url: null }],
          escalation: null
        }
      })
      assert.deepStrictEqual(yield* post(owner.token, `${path}/summarize`, { agent_id: agent.id }), {
        status: 200,
        body: { summary: "Customer's request: How long do refunds take?\nStill open: the request above." }
      })
      const messages = yield* owner.client.messages.list({ query: { conversation_id: conversation.id } })
      assert.strictEqual(messages.meta.total, 1, "nothing stored")
      // A token of another workspace does not see the conversation.
      assert.strictEqual((yield* post(reader.token, `${path}/summarize`, { agent_id: agent.id })).status, 404)
    }))

  it.effect("D61: a matching escalation rule is the suggestion's escalation", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const user = yield* userOf(owner)
      const agent = yield* owner.client.agents.create({
        payload: { name: "Bot", escalation_rules: [{ channel: "chat", rule: "a \"lawyer\"", escalate_to: user.id }] }
      })
      const customer = yield* owner.client.customers.create({ payload: { email: "bo@example.com" } })
      const conversation = yield* owner.client.conversations.create({ payload: { customer_id: customer.id } })
      yield* owner.client.messages.create({
        params: { id: conversation.id },
        payload: { sender_type: "customer", sender_id: customer.id, content: "My lawyer will call you" }
      })
      const typed = yield* owner.client.conversations.suggestReply({
        params: { id: conversation.id },
        payload: { agent_id: agent.id }
      })
      assert.deepStrictEqual([typed.suggestion, typed.escalation?.reason, typed.escalation?.escalate_to], [
        null,
        "escalation_rule",
        user.id
      ])
      const summary = yield* owner.client.conversations.summarize({
        params: { id: conversation.id },
        payload: { agent_id: agent.id }
      })
      assert.strictEqual(summary.summary, "Customer's request: My lawyer will call you\nStill open: the request above.")
    }))

  it.effect("D61: bad input: unknown conversation 404, foreign agent 400 INVALID_AGENT, missing agent_id 422", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const stranger = yield* tenant()
      const foreign = yield* stranger.client.agents.create({ payload: { name: "Theirs" } })
      const agent = yield* owner.client.agents.create({ payload: { name: "Mine" } })
      const customer = yield* owner.client.customers.create({ payload: { email: "cy@example.com" } })
      const conversation = yield* owner.client.conversations.create({ payload: { customer_id: customer.id } })
      for (const action of ["suggest-reply", "summarize"]) {
        const unknown = yield* post(owner.token, `/v1/conversations/00000000-0000-4000-8000-000000000000/${action}`, {
          agent_id: agent.id
        })
        assert.deepStrictEqual([unknown.status, unknown.body["code"]], [404, "RESOURCE_NOT_FOUND"], action)
        const path = `/v1/conversations/${conversation.id}/${action}`
        const invalid = yield* post(owner.token, path, { agent_id: foreign.id })
        assert.deepStrictEqual([invalid.status, invalid.body["code"]], [400, "INVALID_AGENT"], action)
        const missing = yield* post(owner.token, path, {})
        assert.strictEqual(missing.status, 422, action)
        assert.deepStrictEqual(Object.keys(missing.body["errors"] as object), ["agent_id"], action)
        const badLocale = yield* post(owner.token, path, { agent_id: agent.id, locale: "x".repeat(11) })
        assert.strictEqual(badLocale.status, action === "suggest-reply" ? 422 : 200, action)
      }
    }))
})
