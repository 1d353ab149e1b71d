/**
 * Found by the simulator (issue 19): a customer deleted while its question waits for an AI reply (D24 keeps its
 * conversations and messages) must not stop the reply worker. Its job could not be loaded once claimed, the worker
 * stopped draining, and every later question, of any conversation, waited for the next poll.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  Agents,
  AnswerModel,
  Conversations,
  CreateAgent,
  CreateArticle,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  Customers,
  KnowledgeBase,
  ListMessages,
  Messages,
  TranslationInput
} from "@support-engine/core"
import { Duration, Effect, Layer } from "effect"
import { as, makeWorkspace } from "../../storage/test/conformance/Harness.js"
import { advanceBy, makeTestEngine, settle } from "../src/index.js"

/** The local model, two seconds per answer on the test clock: the first question holds the worker. */
const slowModel = Layer.effect(
  AnswerModel,
  Effect.map(AnswerModel, (local) => ({
    ...local,
    answer: (request) => Effect.andThen(Effect.sleep(Duration.seconds(2)), local.answer(request))
  }))
)

describe("reply queue", () => {
  it.effect("a deleted customer's pending question does not hold back later ones (D24, D53)", () =>
    Effect.gen(function*() {
      const { principal } = yield* makeWorkspace()
      yield* Effect.gen(function*() {
        const agent = yield* (yield* Agents).create(new CreateAgent({ name: "Bot", auto_reply: true }))
        yield* (yield* KnowledgeBase).create(
          new CreateArticle({
            status: "published",
            translations: [new TranslationInput({ locale: "en", title: "Hours", content: "We open at nine." })]
          })
        )
        const conversationFor = Effect.gen(function*() {
          const customer = yield* (yield* Customers).create(new CreateCustomer({ first_name: "Ada" }))
          const conversation = yield* (yield* Conversations).create(
            new CreateConversation({ customer_id: customer.id, assignee_id: agent.id, assignee_type: "agent" })
          )
          const ask = Messages.pipe(Effect.flatMap((m) =>
            m.create(
              conversation.id,
              new CreateMessage({ sender_type: "customer", sender_id: customer.id, content: "When do you open?" })
            )
          ))
          return { customer, conversation, ask }
        })
        const first = yield* conversationFor
        yield* first.ask
        yield* settle
        yield* first.ask
        yield* (yield* Customers).delete(first.customer.id)
        // The first reply is written, then the second job is claimed; its lease ends three minutes later.
        yield* advanceBy(10 * 60_000)
        const second = yield* conversationFor
        yield* second.ask
        yield* advanceBy(10_000)
        const replies = yield* (yield* Messages).list(
          new ListMessages({ conversation_id: second.conversation.id, sender_type: "agent" })
        )
        assert.strictEqual(replies.meta.total, 1)
      }).pipe(as(principal), Effect.orDie)
    }).pipe(Effect.provide(makeTestEngine({ overrides: slowModel }))))
})
