/** `POST /v1/agents/{id}/ask` end to end with the local model (D53): retrieval, citations, guardrails, handoffs. */
import { assert, layer } from "@effect/vitest"
import { CreateApiToken, Tokens } from "@support-engine/core"
import { Effect, Redacted } from "effect"
import { processed, raw, tenant, testServer, userOf } from "./Harness.js"

const ask = (token: string, id: string, question: string, channel = "chat", locale?: string) =>
  Effect.map(
    raw("POST", `/v1/agents/${id}/ask`, { token, json: { question, channel, ...(locale ? { locale } : {}) } }),
    (r) => ({
      status: r.status,
      body: r.body as {
        answer: string | null
        citations: Array<{ type: string; id: string; title: string; url: string | null }>
        escalation: { reason: string; rule_id: string | null; escalate_to: string | null } | null
      }
    })
  )

layer(testServer("agent-ask"), { excludeTestServices: true })("agent ask", (it) => {
  it.effect("answers from a completed training item with its citation; read ability is enough (D53)", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const agent = yield* owner.client.agents.create({ payload: { name: "Bot", response_length: "short" } })
      const item = yield* owner.client.training.create({
        payload: { type: "text", title: "Refund policy", content: "Refunds are paid back within five working days." }
      })
      yield* processed(owner.client, item.id)
      const reader = yield* tenant(["external-api:read"])
      assert.strictEqual((yield* ask(reader.token, agent.id, "refund")).status, 404)

      const answered = yield* ask(owner.token, agent.id, "How long do refunds take?")
      assert.strictEqual(answered.status, 200)
      assert.deepStrictEqual(answered.body, {
        answer: "Refunds are paid back within five working days.",
        citations: [{ type: "training_data", id: item.id, title: "Refund policy", url: null }],
        escalation: null
      })
      // Another workspace's agent never retrieves this content.
      const other = yield* reader.client.agents.create({ payload: { name: "Other" } }).pipe(Effect.flip)
      assert.strictEqual(other._tag, "InsufficientAbility")
      const stranger = yield* tenant()
      const strangerAgent = yield* stranger.client.agents.create({ payload: { name: "Bot" } })
      assert.deepStrictEqual((yield* ask(stranger.token, strangerAgent.id, "How long do refunds take?")).body, {
        answer: null,
        citations: [],
        escalation: { reason: "no_answer", rule_id: null, escalate_to: null }
      })
    }))

  it.effect("a read-only token of the workspace may ask (a POST that stores nothing); it may not create", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const agent = yield* owner.client.agents.create({ payload: { name: "Bot" } })
      const issued = yield* (yield* Tokens).create(
        new CreateApiToken({ workspace_id: owner.workspace.id, name: "reader", abilities: ["external-api:read"] })
      ).pipe(Effect.orDie)
      const reader = Redacted.value(issued.plain)
      const r = yield* ask(reader, agent.id, "hello there")
      assert.deepStrictEqual([r.status, r.body.escalation?.reason], [200, "no_answer"])
      assert.strictEqual((yield* raw("POST", "/v1/agents", { token: reader, json: { name: "x" } })).status, 403)
    }))

  it.effect("items linked to another agent, queued items and draft articles are not retrieved; published are", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const agent = yield* client.agents.create({ payload: { name: "Bot" } })
      const other = yield* client.agents.create({ payload: { name: "Other" } })
      const linked = yield* client.training.create({
        payload: {
          type: "qa",
          question: "Do you ship abroad?",
          answer: "We ship to every country.",
          agent_ids: [other.id]
        }
      })
      yield* processed(client, linked.id)
      assert.strictEqual((yield* ask(token, agent.id, "ship abroad")).body.escalation?.reason, "no_answer")
      assert.strictEqual((yield* ask(token, other.id, "ship abroad")).body.answer, "We ship to every country.")

      const draft = yield* client.kb.create({
        payload: { translations: [{ locale: "en", title: "Warranty", content: "Two years of warranty." }] }
      })
      assert.strictEqual((yield* ask(token, agent.id, "warranty")).body.escalation?.reason, "no_answer")
      yield* client.kb.update({ params: { id: draft.id }, payload: { status: "published" } })
      const answered = yield* ask(token, agent.id, "warranty")
      assert.deepStrictEqual(answered.body.citations.map((c) => [c.type, c.id]), [["kb_article", draft.id]])
      yield* client.kb.update({ params: { id: draft.id }, payload: { status: "draft" } })
      assert.strictEqual((yield* ask(token, agent.id, "warranty")).body.escalation?.reason, "no_answer")
    }))

  it.effect("the customer's locale is preferred among an article's translations", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const agent = yield* client.agents.create({ payload: { name: "Bot" } })
      yield* client.kb.create({
        payload: {
          status: "published",
          translations: [
            { locale: "en", title: "Invoices", content: "Invoices are emailed monthly." },
            { locale: "de", title: "Invoices", content: "Rechnungen kommen monatlich per E-Mail (invoices)." }
          ]
        }
      })
      assert.strictEqual(
        (yield* ask(token, agent.id, "invoices", "chat", "en")).body.answer,
        "Invoices are emailed monthly."
      )
      assert.strictEqual(
        (yield* ask(token, agent.id, "invoices", "chat", "de-AT")).body.answer,
        "Rechnungen kommen monatlich per E-Mail (invoices)."
      )
    }))

  it.effect("escalation rules apply to their channel only, before retrieval (D53 order)", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const user = yield* userOf(owner)
      const agent = yield* owner.client.agents.create({
        payload: {
          name: "Bot",
          escalation_rules: [
            { channel: "email", rule: "customer wants a refund", escalate_to: user.id },
            { channel: "chat", rule: "talk to a \"human agent\"", escalate_to: user.id }
          ]
        }
      })
      const [emailRule, chatRule] = agent.escalation_rules
      const byEmail = yield* ask(owner.token, agent.id, "The customer wants a REFUND now", "email")
      assert.deepStrictEqual(byEmail.body.escalation, {
        reason: "escalation_rule",
        rule_id: emailRule!.id,
        escalate_to: user.id
      })
      // The same words on chat: the email rule does not apply; nothing retrieved, so no_answer.
      const byChat = yield* ask(owner.token, agent.id, "The customer wants a REFUND now", "chat")
      assert.strictEqual(byChat.body.escalation?.reason, "no_answer")
      const quoted = yield* ask(owner.token, agent.id, "can I talk to a Human Agent please", "chat")
      assert.deepStrictEqual(quoted.body.escalation?.rule_id, chatRule!.id)
    }))

  it.effect("a prohibited phrase: the draft is regenerated once, then handed off (whole words, any case)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const agent = yield* client.agents.create({
        payload: { name: "Bot", prohibited_phrases: [{ phrase: "Guaranteed" }] }
      })
      yield* client.kb.create({
        payload: {
          status: "published",
          translations: [{ locale: "en", title: "Delivery", content: "Delivery is guaranteed in two days." }]
        }
      })
      assert.deepStrictEqual((yield* ask(token, agent.id, "delivery")).body.escalation, {
        reason: "prohibited_phrase",
        rule_id: null,
        escalate_to: null
      })
      // A second passage without the phrase: the regenerated draft is sent.
      yield* client.kb.create({
        payload: {
          status: "published",
          translations: [{ locale: "en", title: "Delivery times", content: "Delivery takes two days usually." }]
        }
      })
      const r = yield* ask(token, agent.id, "delivery")
      assert.strictEqual(r.body.answer, "Delivery takes two days usually.")
      // Whole words: "guaranteedly" does not contain the phrase.
      const lenient = yield* client.agents.create({
        payload: { name: "B2", prohibited_phrases: [{ phrase: "guarantee" }] }
      })
      assert.strictEqual((yield* ask(token, lenient.id, "delivery")).body.escalation, null)
    }))

  it.effect("bad input: unknown agent 404, question over 4,000 characters 422, unknown channel 422", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const agent = yield* client.agents.create({ payload: { name: "Bot" } })
      assert.strictEqual((yield* ask(token, "00000000-0000-4000-8000-000000000000", "hi")).status, 404)
      const long = yield* ask(token, agent.id, "a".repeat(4001))
      assert.strictEqual(long.status, 422)
      assert.deepStrictEqual(Object.keys((long.body as unknown as { errors: object }).errors), ["question"])
      assert.strictEqual((yield* ask(token, agent.id, "hi", "sms")).status, 422)
      const typed = yield* client.agents.ask({ params: { id: agent.id }, payload: { question: "hi", channel: "chat" } })
      assert.strictEqual(typed.escalation?.reason, "no_answer")
    }))
})
