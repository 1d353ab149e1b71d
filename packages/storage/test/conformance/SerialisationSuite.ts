import { assert, describe, it } from "@effect/vitest"
import {
  Agent,
  Agents,
  Article,
  Companies,
  Company,
  Conversation,
  Conversations,
  CreateAgent,
  CreateArticle,
  CreateCompany,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CreateTrainingData,
  CreateUser,
  Customer,
  Customers,
  Event,
  Events,
  KnowledgeBase,
  ListAgents,
  ListArticles,
  ListCompanies,
  ListConversations,
  ListCustomers,
  ListEvents,
  ListMessages,
  ListTrainingData,
  Message,
  Messages,
  PutTranslation,
  Training,
  TrainingDataItem,
  TranslationInput,
  UpdateAgent,
  UpdateConversation,
  UpdateCustomer,
  Users
} from "@support-engine/core"
import { Effect, Schema } from "effect"
import { type Adapter, as, makeWorkspace, provideEngine } from "./Harness.js"

/** The JSON text the API sends for `value`: byte-for-byte, so key order and list order both count. */
const wire = <A, I>(schema: Schema.Codec<A, I>) => (value: A): string =>
  JSON.stringify(Schema.encodeSync(schema)(value))

/** The data of the workspace's newest event of `type`, as the event list and webhook bodies send it. */
const eventData = (type: Event["event"]) =>
  Effect.gen(function*() {
    const page = yield* (yield* Events).list(new ListEvents({ event: type, per_page: 1 }))
    return JSON.stringify(Schema.encodeSync(Event)(page.data[0]!).data)
  })

/**
 * One serialisation per resource (issue 20): whatever operation returns a resource (create, update, get, list,
 * its events), the JSON is the same text, lists inside it in their documented order (docs/responses.md).
 */
export const serialisationSuite = (adapter: Adapter) =>
  describe(`One serialisation per resource (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("companies and customers: create = get = list item = event data", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        yield* Effect.gen(function*() {
          const companies = yield* Companies
          const company = yield* companies.create(new CreateCompany({ name: "Globex", domain: "globex.test" }))
          const asCompany = wire(Company)
          assert.strictEqual(asCompany(yield* companies.get(company.id)), asCompany(company))
          assert.strictEqual(asCompany((yield* companies.list(new ListCompanies({}))).data[0]!), asCompany(company))

          const customers = yield* Customers
          const customer = yield* customers.create(
            new CreateCustomer({ email: "ada@example.test", first_name: "Ada", company_id: company.id })
          )
          const asCustomer = wire(Customer)
          assert.strictEqual(asCustomer(yield* customers.get(customer.id)), asCustomer(customer))
          assert.strictEqual(yield* eventData("customer.created"), asCustomer(customer))
          const updated = yield* customers.update(customer.id, new UpdateCustomer({ last_name: "Lovelace" }))
          assert.strictEqual(asCustomer(yield* customers.get(customer.id)), asCustomer(updated))
          assert.strictEqual(asCustomer((yield* customers.list(new ListCustomers({}))).data[0]!), asCustomer(updated))
          assert.strictEqual(yield* eventData("customer.updated"), asCustomer(updated))
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("agents: phrases and rules in the order sent, on create, update, get and list", () =>
      Effect.gen(function*() {
        const { principal, workspace } = yield* makeWorkspace()
        const sam = yield* (yield* Users).create(
          new CreateUser({ workspace_id: workspace.id, name: "Sam", email: "s@x.io" })
        )
        yield* Effect.gen(function*() {
          const agents = yield* Agents
          const agent = yield* agents.create(
            new CreateAgent({
              name: "Bot",
              prohibited_phrases: [{ phrase: "zebra" }, { phrase: "apple" }, { phrase: "mango" }],
              escalation_rules: [
                { channel: "email", rule: "z", escalate_to: sam.id },
                { channel: "chat", rule: "a", escalate_to: sam.id }
              ]
            })
          )
          assert.deepStrictEqual(agent.prohibited_phrases.map((p) => p.phrase), ["zebra", "apple", "mango"])
          const asAgent = wire(Agent)
          assert.strictEqual(asAgent(yield* agents.get(agent.id)), asAgent(agent))
          const updated = yield* agents.update(
            agent.id,
            new UpdateAgent({ prohibited_phrases: [{ phrase: "yak" }, { phrase: "bee" }] })
          )
          assert.deepStrictEqual(updated.prohibited_phrases.map((p) => p.phrase), ["yak", "bee"])
          assert.strictEqual(asAgent(yield* agents.get(agent.id)), asAgent(updated))
          assert.strictEqual(asAgent((yield* agents.list(new ListAgents({}))).data[0]!), asAgent(updated))
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("conversations and messages: tags and addresses in the order sent; event data the same text", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        yield* Effect.gen(function*() {
          const customer = yield* (yield* Customers).create(new CreateCustomer({ email: "c@example.test" }))
          const conversations = yield* Conversations
          const conversation = yield* conversations.create(
            new CreateConversation({ customer_id: customer.id, subject: "Login", tags: ["vip", "billing", "able"] })
          )
          assert.deepStrictEqual(conversation.tags, ["vip", "billing", "able"])
          const asConversation = wire(Conversation)
          assert.strictEqual(asConversation(yield* conversations.get(conversation.id)), asConversation(conversation))
          const updated = yield* conversations.update(
            conversation.id,
            new UpdateConversation({ tags: ["zulu", "alpha"], priority: "high" })
          )
          assert.strictEqual(asConversation(yield* conversations.get(conversation.id)), asConversation(updated))
          assert.strictEqual(
            asConversation((yield* conversations.list(new ListConversations({}))).data[0]!),
            asConversation(updated)
          )
          const tagsEvent = JSON.parse(yield* eventData("conversation.tags.updated")) as { tags: Array<string> }
          assert.deepStrictEqual(tagsEvent.tags, ["zulu", "alpha"])

          const messages = yield* Messages
          const message = yield* messages.create(
            conversation.id,
            new CreateMessage({
              sender_type: "customer",
              sender_id: customer.id,
              content: "Hi",
              to: ["z@example.test", "a@example.test"],
              cc: ["m@example.test", "b@example.test"]
            })
          )
          const asMessage = wire(Message)
          const listed = yield* messages.list(new ListMessages({ conversation_id: conversation.id }))
          assert.strictEqual(asMessage(listed.data[0]!), asMessage(message))
          assert.deepStrictEqual(message.to, ["z@example.test", "a@example.test"])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("training data: agent_ids in the order sent", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        yield* Effect.gen(function*() {
          const agents = yield* Agents
          const first = yield* agents.create(new CreateAgent({ name: "First" }))
          const second = yield* agents.create(new CreateAgent({ name: "Second" }))
          const training = yield* Training
          const item = yield* training.create(
            new CreateTrainingData({ type: "text", title: "FAQ", content: "x", agent_ids: [second.id, first.id] })
          )
          assert.deepStrictEqual(item.agent_ids, [second.id, first.id])
          const asItem = wire(TrainingDataItem)
          assert.strictEqual(asItem(yield* training.get(item.id)), asItem(item))
          assert.strictEqual(asItem((yield* training.list(new ListTrainingData({}))).data[0]!), asItem(item))
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("articles: translations in creation order, those of one request in the request's order", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        yield* Effect.gen(function*() {
          const kb = yield* KnowledgeBase
          const article = yield* kb.create(
            new CreateArticle({
              translations: [
                new TranslationInput({ locale: "en", title: "Refunds" }),
                new TranslationInput({ locale: "de", title: "Erstattungen" }),
                new TranslationInput({ locale: "fr", title: "Remboursements" })
              ]
            })
          )
          assert.deepStrictEqual(article.translations.map((t) => t.locale), ["en", "de", "fr"])
          const asArticle = wire(Article)
          assert.strictEqual(asArticle(yield* kb.get(article.id)), asArticle(article))
          const added = yield* kb.putTranslation(article.id, "es", new PutTranslation({ title: "Reembolsos" }))
          assert.deepStrictEqual(added.translations.map((t) => t.locale), ["en", "de", "fr", "es"])
          const revised = yield* kb.putTranslation(article.id, "de", new PutTranslation({ title: "Rückerstattung" }))
          assert.deepStrictEqual(revised.translations.map((t) => t.locale), ["en", "de", "fr", "es"])
          assert.strictEqual(asArticle(yield* kb.get(article.id)), asArticle(revised))
          assert.strictEqual(asArticle((yield* kb.list(new ListArticles({}))).data[0]!), asArticle(revised))
        }).pipe(as(principal))
      }).pipe(provide))
  })
