/**
 * The reply loop's model budget (D53, D61): however many model calls one job takes (the answer, its redraft, then a
 * handoff's summary), they end two minutes after the job was claimed, inside its three-minute lease, so a live worker
 * always writes its outcome before another worker could claim the same message.
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
  Events,
  KnowledgeBase,
  ListEvents,
  ListMessages,
  Messages,
  REPLY_LEASE,
  REPLY_MODEL_BUDGET,
  TranslationInput
} from "@support-engine/core"
import { DateTime, Duration, Effect, Layer } from "effect"
import { as, makeWorkspace } from "../../storage/test/conformance/Harness.js"
import { advanceBy, makeTestEngine } from "../src/index.js"

/**
 * A model that takes 29 seconds per answer (inside the per-call timeout) and always names the prohibited phrase, and
 * whose summaries never come: alone, the answer, its redraft and the summary's timeouts and retries would take 151 s.
 */
const slowModel = Layer.effect(
  AnswerModel,
  Effect.map(AnswerModel, (local) => ({
    ...local,
    answer: () => Effect.as(Effect.sleep(Duration.seconds(29)), "Refunds take five days."),
    summarize: () => Effect.never
  }))
)

describe("reply model budget", () => {
  it.effect("a job's model calls together end at the budget, inside the lease, with the quoted summary (D53, D61)", () =>
    Effect.gen(function*() {
      const { principal } = yield* makeWorkspace()
      yield* Effect.gen(function*() {
        const agent = yield* (yield* Agents).create(
          new CreateAgent({ name: "Bot", auto_reply: true, prohibited_phrases: [{ phrase: "five days" }] })
        )
        yield* (yield* KnowledgeBase).create(
          new CreateArticle({
            status: "published",
            translations: [new TranslationInput({ locale: "en", title: "Refunds", content: "Refunds are paid back." })]
          })
        )
        const customer = yield* (yield* Customers).create(new CreateCustomer({ first_name: "Ada" }))
        const conversation = yield* (yield* Conversations).create(
          new CreateConversation({ customer_id: customer.id, assignee_id: agent.id, assignee_type: "agent" })
        )
        const question = yield* (yield* Messages).create(
          conversation.id,
          new CreateMessage({ sender_type: "customer", sender_id: customer.id, content: "How long do refunds take?" })
        )
        yield* advanceBy(Duration.toMillis(REPLY_LEASE) + 60_000)

        const escalated = yield* (yield* Events).list(new ListEvents({ event: "conversation.escalated" }))
        assert.strictEqual(escalated.data.length, 1)
        const [event] = escalated.data
        const data = event!.data as { reason: string; summary: string }
        assert.strictEqual(data.reason, "prohibited_phrase")
        // The summary the model never wrote is quoted from the conversation.
        assert.include(data.summary, "How long do refunds take?")
        // Written when the budget ran out, not when the calls would have ended, and before the lease ends.
        const took = DateTime.distance(question.created_at, event!.occurred_at)
        assert.strictEqual(Duration.toMillis(took), Duration.toMillis(REPLY_MODEL_BUDGET))
        assert.isTrue(Duration.isLessThan(took, REPLY_LEASE))
        const replies = yield* (yield* Messages).list(
          new ListMessages({ conversation_id: conversation.id, sender_type: "agent" })
        )
        assert.strictEqual(replies.meta.total, 0)
      }).pipe(as(principal), Effect.orDie)
    }).pipe(Effect.provide(makeTestEngine({ overrides: slowModel }))))
})
