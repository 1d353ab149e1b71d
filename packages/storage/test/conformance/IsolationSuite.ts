/**
 * Workspace isolation as a property (D11): for random ids and for another workspace's real ids, every read and
 * write of every resource fails with the same NotFound a missing id gets, and nothing of the other workspace changes.
 */
import { assert, describe, layer } from "@effect/vitest"
import {
  AgentId,
  Agents,
  ArticleId,
  Companies,
  CompanyId,
  ConversationId,
  Conversations,
  CreateAgent,
  CreateArticle,
  CreateCompany,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CreateTrainingData,
  CustomerId,
  Customers,
  type EngineError,
  KnowledgeBase,
  ListRevisions,
  MessageId,
  Messages,
  type Principal,
  PutTranslation,
  RevisionId,
  Training,
  TrainingDataId,
  TranslationInput,
  UpdateAgent,
  UpdateArticle,
  UpdateCompany,
  UpdateConversation,
  UpdateCustomer,
  UpdateTrainingData,
  Uuid
} from "@support-engine/core"
import { Effect } from "effect"
import { recordedEvents } from "./CustomersSuite.js"
import { type Adapter, as, engineLayer, makeWorkspace, withTracing } from "./Harness.js"

/** One of each resource in a workspace. */
const populated = Effect.gen(function*() {
  const owner = yield* makeWorkspace()
  return yield* Effect.gen(function*() {
    const company = yield* (yield* Companies).create(new CreateCompany({ name: "Globex" }))
    const customer = yield* (yield* Customers).create(new CreateCustomer({ email: "a@x.io", company_id: company.id }))
    const agent = yield* (yield* Agents).create(new CreateAgent({ name: "Bot" }))
    const conversation = yield* (yield* Conversations).create(new CreateConversation({ customer_id: customer.id }))
    const training = yield* (yield* Training).create(new CreateTrainingData({ type: "text", content: "x" }))
    const article = yield* (yield* KnowledgeBase).create(
      new CreateArticle({ translations: [new TranslationInput({ locale: "en", title: "A" })] })
    )
    const message = yield* (yield* Messages).create(
      conversation.id,
      new CreateMessage({ sender_type: "customer", sender_id: customer.id, content: "hi" })
    )
    return {
      owner,
      ids: {
        company: company.id,
        customer: customer.id,
        agent: agent.id,
        conversation: conversation.id,
        message: message.id,
        training: training.id,
        article: article.id
      }
    }
  }).pipe(as(owner.principal))
})

/** Every operation that takes an id, for a given id string. */
const operations = (raw: string) =>
  Effect.gen(function*(): Effect.fn.Return<
    ReadonlyArray<Effect.Effect<unknown, EngineError, Principal>>,
    never,
    Companies | Customers | Agents | Conversations | Messages | Training | KnowledgeBase
  > {
    const companies = yield* Companies
    const customers = yield* Customers
    const agents = yield* Agents
    const conversations = yield* Conversations
    const messages = yield* Messages
    const training = yield* Training
    const kb = yield* KnowledgeBase
    return [
      companies.get(CompanyId.make(raw)),
      companies.update(CompanyId.make(raw), new UpdateCompany({ name: "X" })),
      companies.delete(CompanyId.make(raw)),
      customers.get(CustomerId.make(raw)),
      customers.update(CustomerId.make(raw), new UpdateCustomer({ first_name: "X" })),
      customers.delete(CustomerId.make(raw)),
      agents.get(AgentId.make(raw)),
      agents.update(AgentId.make(raw), new UpdateAgent({ name: "X" })),
      agents.delete(AgentId.make(raw)),
      conversations.get(ConversationId.make(raw)),
      conversations.update(ConversationId.make(raw), new UpdateConversation({ status: "closed" })),
      conversations.delete(ConversationId.make(raw)),
      messages.create(ConversationId.make(raw), new CreateMessage({ sender_type: "system", content: "x" })),
      messages.delete(MessageId.make(raw)),
      training.get(TrainingDataId.make(raw)),
      training.update(TrainingDataId.make(raw), new UpdateTrainingData({ title: "X" })),
      training.resync(TrainingDataId.make(raw)),
      training.delete(TrainingDataId.make(raw)),
      kb.get(ArticleId.make(raw)),
      kb.update(ArticleId.make(raw), new UpdateArticle({ status: "published" })),
      kb.putTranslation(ArticleId.make(raw), "en", new PutTranslation({ title: "X" })),
      kb.listRevisions(ArticleId.make(raw), new ListRevisions({})),
      kb.restore(ArticleId.make(raw), RevisionId.make(raw)),
      kb.delete(ArticleId.make(raw))
    ]
  })

const outcome = (self: Effect.Effect<unknown, EngineError, Principal>) =>
  Effect.map(Effect.flip(self), (e) => ({ _tag: e._tag, status: e.status, message: e.message }))

export const isolationSuite = (adapter: Adapter) =>
  describe(`Workspace isolation (${adapter.name})`, () => {
    layer(engineLayer(adapter), { timeout: "60 seconds" })((it) => {
      it.effect.prop(
        "random ids and another workspace's ids are the same NotFound on every operation (D11)",
        [Uuid],
        ([randomId]) =>
          Effect.gen(function*() {
            const { ids, owner } = yield* populated
            const intruder = yield* makeWorkspace()
            const before = yield* recordedEvents.pipe(as(owner.principal))
            yield* Effect.gen(function*() {
              const onRandom = yield* operations(randomId)
              const missing = yield* Effect.all(onRandom.map(outcome))
              for (const result of missing) assert.strictEqual(result.status, 404)
              for (const [resource, id] of Object.entries(ids)) {
                const onForeign = yield* operations(id)
                const foreign = yield* Effect.all(onForeign.map(outcome))
                // The same operations on a random id: identical answers, so nothing tells "foreign" from "missing".
                assert.deepStrictEqual(foreign, missing, resource)
              }
            }).pipe(as(intruder.principal))
            assert.deepStrictEqual(yield* recordedEvents.pipe(as(owner.principal)), before)
            assert.deepStrictEqual(yield* recordedEvents.pipe(as(intruder.principal)), [])
            assert.strictEqual((yield* (yield* Customers).get(ids.customer).pipe(as(owner.principal))).email, "a@x.io")
          }).pipe(withTracing(adapter)),
        { arbitrary: { runs: 20 } }
      )
    })
  })
