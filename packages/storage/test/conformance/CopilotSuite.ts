import { assert, describe, it } from "@effect/vitest"
import {
  type AgentId,
  Agents,
  AnswerModel,
  type AnswerModelShape,
  type ConversationId,
  Conversations,
  Copilot,
  CreateAgent,
  CreateArticle,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CreateTrainingData,
  CreateUser,
  Customers,
  Events,
  KnowledgeBase,
  ListEvents,
  ListMessages,
  Messages,
  ModelFailed,
  SuggestReply,
  SummarizeConversation,
  type SummaryRequest,
  Training,
  TranslationInput,
  Users
} from "@support-engine/core"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { drainTraining, REFUNDS } from "../replies/Fixture.js"
import { onEngine } from "../replies/ReplySuite.js"
import { type Adapter, as, codeOf, makeWorkspace } from "./Harness.js"

/** A workspace with a (non auto-reply) agent, a refund policy and a customer's conversation assigned to nobody. */
const setUp = (customerLocale: string | null = null) =>
  Effect.gen(function*() {
    const { principal, workspace } = yield* makeWorkspace(["external-api:read"])
    const writer = { ...principal, abilities: ["external-api:write" as const] }
    const user = yield* (yield* Users).create(
      new CreateUser({ workspace_id: workspace.id, name: "Grace", email: "grace@example.com" })
    )
    const agent = yield* (yield* Agents).create(new CreateAgent({ name: "Copilot", prohibited_phrases: [] })).pipe(
      as(writer)
    )
    const item = yield* (yield* Training).create(
      new CreateTrainingData({ type: "text", title: "Refund policy", content: REFUNDS })
    ).pipe(as(writer))
    yield* drainTraining
    const customer = yield* (yield* Customers).create(
      new CreateCustomer({ email: "ada@example.com", locale: customerLocale })
    ).pipe(as(writer))
    const conversation = yield* (yield* Conversations).create(new CreateConversation({ customer_id: customer.id }))
      .pipe(as(writer))
    const messages = yield* Messages
    const post = (sender_type: "customer" | "user", content: string, is_internal = false) =>
      Effect.andThen(
        TestClock.adjust("1 second"),
        messages.create(
          conversation.id,
          new CreateMessage({
            sender_type,
            sender_id: sender_type === "customer" ? customer.id : user.id,
            content,
            is_internal
          })
        ).pipe(as(writer))
      )
    const copilot = yield* Copilot
    const suggest = (agentId: AgentId = agent.id, id: ConversationId = conversation.id, locale?: string) =>
      copilot.suggestReply(id, new SuggestReply({ agent_id: agentId, ...(locale ? { locale } : {}) })).pipe(
        as(principal)
      )
    const summarize = (agentId: AgentId = agent.id, id: ConversationId = conversation.id) =>
      Effect.map(
        copilot.summarize(id, new SummarizeConversation({ agent_id: agentId })).pipe(as(principal)),
        (s) => s.summary
      )
    const eventCount = Effect.map(
      (yield* Events).list(new ListEvents({ per_page: 1 })).pipe(as(principal)),
      (page) => page.meta.total
    )
    return {
      principal,
      writer,
      workspace,
      user,
      agent,
      item,
      customer,
      conversation,
      post,
      suggest,
      summarize,
      eventCount
    }
  }).pipe(Effect.orDie)

/** The copilot (D61) through core's service on each database: suggestions and summaries for a person. */
export const copilotSuite = (adapter: Adapter) =>
  describe(`copilot (${adapter.name})`, () => {
    const provide = onEngine(adapter)

    it.effect("D61: suggests a reply to the latest customer message with citations; stores nothing, no event", () =>
      Effect.gen(function*() {
        const f = yield* setUp()
        assert.deepStrictEqual({ ...(yield* f.suggest()) }, { suggestion: null, citations: [], escalation: null })
        assert.strictEqual(yield* f.summarize(), "", "an empty conversation sums up to nothing")

        yield* f.post("customer", "Hello, I bought a lamp last week.")
        yield* f.post("user", "Hello! How can I help?")
        yield* f.post("user", "internal: check the order", true)
        yield* f.post("customer", "How long do refunds take?")
        const before = yield* f.eventCount
        const suggested = yield* f.suggest()
        assert.strictEqual(suggested.suggestion, REFUNDS)
        assert.deepStrictEqual(suggested.citations.map((c) => ({ ...c })), [
          { type: "training_data", id: f.item.id, title: "Refund policy", url: null }
        ])
        assert.isNull(suggested.escalation)
        assert.strictEqual(
          yield* f.summarize(),
          "Customer's request: Hello, I bought a lamp last week.\nAnswered: Hello! How can I help?\n" +
            "Still open: How long do refunds take?"
        )
        assert.strictEqual(yield* f.eventCount, before, "no event recorded")
        const thread = yield* (yield* Messages).list(new ListMessages({ conversation_id: f.conversation.id }))
          .pipe(as(f.principal))
        assert.strictEqual(thread.meta.total, 4, "no message stored")

        // Once answered, nothing is open.
        yield* f.post("user", REFUNDS)
        assert.match(yield* f.summarize(), /\nStill open: nothing; the last message is a reply\.$/)
      }).pipe(provide))

    it.effect("D61: the conversation's channel rules hand off; no content is no_answer; any agent helps", () =>
      Effect.gen(function*() {
        const f = yield* setUp()
        const strict = yield* (yield* Agents).create(
          new CreateAgent({
            name: "Strict",
            escalation_rules: [{ channel: "chat", rule: "wants a \"manager\"", escalate_to: f.user.id }]
          })
        ).pipe(as(f.writer))
        yield* f.post("customer", "I want a manager about my refunds")
        const escalated = yield* f.suggest(strict.id)
        assert.deepStrictEqual([escalated.suggestion, escalated.citations, { ...escalated.escalation }], [null, [], {
          reason: "escalation_rule",
          rule_id: strict.escalation_rules[0]!.id,
          escalate_to: f.user.id
        }])
        yield* f.post("customer", "Can I pay with a llama?")
        assert.strictEqual((yield* f.suggest()).escalation?.reason, "no_answer")
      }).pipe(provide))

    it.effect("D61: unknown conversation 404; an agent of another workspace is INVALID_AGENT", () =>
      Effect.gen(function*() {
        const f = yield* setUp()
        const other = yield* setUp()
        assert.strictEqual(yield* codeOf(f.suggest(f.agent.id, other.conversation.id)), "RESOURCE_NOT_FOUND")
        assert.strictEqual(yield* codeOf(f.summarize(f.agent.id, other.conversation.id)), "RESOURCE_NOT_FOUND")
        assert.strictEqual(yield* codeOf(f.suggest(other.agent.id)), "INVALID_AGENT")
        assert.strictEqual(yield* codeOf(f.summarize(other.agent.id)), "INVALID_AGENT")
      }).pipe(provide))

    it.effect("D61: the customer's locale picks the article's translation; the request's locale overrides it", () =>
      Effect.gen(function*() {
        const f = yield* setUp("fr-CA")
        yield* (yield* KnowledgeBase).create(
          new CreateArticle({
            status: "published",
            translations: [
              new TranslationInput({ locale: "en", title: "Invoices", content: "Invoices are emailed monthly." }),
              new TranslationInput({
                locale: "fr",
                title: "Factures",
                content: "Les factures (invoices) sont envoyées chaque mois."
              })
            ]
          })
        ).pipe(as(f.writer))
        yield* f.post("customer", "invoices")
        assert.strictEqual((yield* f.suggest()).suggestion, "Les factures (invoices) sont envoyées chaque mois.")
        assert.strictEqual(
          (yield* f.suggest(f.agent.id, f.conversation.id, "en")).suggestion,
          "Invoices are emailed monthly."
        )
      }).pipe(provide))

    it.effect("D61: the first request stays in the summary of a long conversation, within 1,000 characters", () =>
      Effect.gen(function*() {
        const f = yield* setUp()
        yield* f.post("customer", `My parcel never arrived. ${"Details. ".repeat(80)}`)
        for (let i = 0; i < 60; i++) yield* f.post(i % 2 === 0 ? "user" : "customer", `Message ${i}`)
        const summary = yield* f.summarize()
        assert.isAtMost(summary.length, 1000)
        assert.match(summary, /^Customer's request: My parcel never arrived\. Details\./)
        assert.match(summary, /\nAnswered: Message 58\nStill open: Message 59$/)
      }).pipe(provide))

    it.effect("D61: a model's summary is used; a prohibited phrase twice or a failure falls back; locale is passed", () => {
      const seen: Array<SummaryRequest> = []
      const locales: Array<string | null> = []
      let mode: "ok" | "prohibited" | "fail" = "ok"
      const model: AnswerModelShape = {
        answer: (request) => {
          locales.push(request.locale ?? null)
          return Effect.succeed(request.passages[0]!.text)
        },
        matchRule: () => Effect.succeed(Option.none()),
        summarize: (request) => {
          seen.push(request)
          return mode === "fail"
            ? Effect.fail(new ModelFailed({ message: "refused", retryable: false }))
            : Effect.succeed(mode === "ok" ? `  ${"Summary. ".repeat(200)}` : "We guarantee a refund.")
        }
      }
      return Effect.gen(function*() {
        const f = yield* setUp("de")
        const agent = yield* (yield* Agents).create(
          new CreateAgent({ name: "Careful", prohibited_phrases: [{ phrase: "guarantee" }] })
        ).pipe(as(f.writer))
        yield* f.post("customer", "Where is my refund?")
        const written = yield* f.summarize(agent.id)
        assert.isAtMost(written.length, 1000)
        assert.match(written, /^Summary\. Summary\./)
        assert.deepStrictEqual(seen.map((r) => [r.locale, r.avoid, r.transcript, r.maxLength]), [[
          "de",
          [],
          [{ role: "customer", content: "Where is my refund?" }],
          1000
        ]])
        mode = "prohibited"
        const quoted = "Customer's request: Where is my refund?\nStill open: the request above."
        assert.strictEqual(yield* f.summarize(agent.id), quoted)
        assert.deepStrictEqual(seen.slice(1).map((r) => r.avoid), [[], ["guarantee"]], "drafted again once")
        mode = "fail"
        assert.strictEqual(yield* f.summarize(agent.id), quoted)
        // The model drafting a suggestion is told the customer's locale, or the request's.
        yield* f.post("customer", "How long do refunds take?")
        yield* f.suggest()
        yield* f.suggest(f.agent.id, f.conversation.id, "fr")
        assert.deepStrictEqual(locales, ["de", "fr"])
      }).pipe(onEngine(adapter, Layer.succeed(AnswerModel, model)))
    })
  })
