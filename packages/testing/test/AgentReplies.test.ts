/**
 * The reply loop's events reach webhooks like every event (D53, D37): the test kit's engine runs the reply worker
 * and the dispatcher, so an agent's reply and a handoff arrive signed at the receiver.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  Agents,
  Conversations,
  CreateAgent,
  CreateArticle,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CreateWebhook,
  Customers,
  KnowledgeBase,
  Messages,
  TranslationInput,
  Webhooks
} from "@support-engine/core"
import { verify } from "@support-engine/webhooks"
import { Effect, Redacted } from "effect"
import { as, makeWorkspace } from "../../storage/test/conformance/Harness.js"
import { makeTestEngine, RecordingReceiver, settle } from "../src/index.js"

const URL = "https://hooks.example.test/replies"

describe("AI reply loop and webhooks (test kit)", () => {
  it.effect("an agent's reply and its handoff are delivered as conversation.agent.message.created and escalated", () =>
    Effect.gen(function*() {
      const { principal } = yield* makeWorkspace()
      const run = <A, E, R>(self: Effect.Effect<A, E, R>) => self.pipe(as(principal), Effect.orDie)
      const webhook = yield* run((yield* Webhooks).create(
        new CreateWebhook({ url: URL, events: ["conversation.agent.message.created", "conversation.escalated"] })
      ))
      const agent = yield* run((yield* Agents).create(new CreateAgent({ name: "Bot", auto_reply: true })))
      const article = yield* run((yield* KnowledgeBase).create(
        new CreateArticle({
          status: "published",
          translations: [new TranslationInput({ locale: "en", title: "Shipping", content: "We ship worldwide." })]
        })
      ))
      const customer = yield* run((yield* Customers).create(new CreateCustomer({ email: "ada@example.com" })))
      const conversation = yield* run((yield* Conversations).create(
        new CreateConversation({ customer_id: customer.id, assignee_id: agent.id, assignee_type: "agent" })
      ))
      const messages = yield* Messages
      const say = (content: string) =>
        run(
          messages.create(
            conversation.id,
            new CreateMessage({ sender_type: "customer", sender_id: customer.id, content })
          )
        )
      yield* say("Do you ship abroad?")
      yield* settle
      yield* say("Can I pay with a llama?")
      yield* settle

      const received = yield* Effect.flatMap(RecordingReceiver, (r) => r.receivedAt(URL))
      const payloads = yield* Effect.forEach(received, (r) => verify(r.body, r.headers, Redacted.value(webhook.secret)))
      assert.deepStrictEqual(payloads.map((p) => p.event), [
        "conversation.agent.message.created",
        "conversation.escalated"
      ])
      const message = payloads[0]!.data["message"] as { sender_id: string; citations: ReadonlyArray<{ id: string }> }
      assert.deepStrictEqual([message.sender_id, message.citations.map((c) => c.id)], [agent.id, [article.id]])
      assert.deepStrictEqual(payloads[1]!.data, {
        conversation_id: conversation.id,
        reason: "no_answer",
        rule_id: null,
        assignee_id: null,
        // D61: the person who takes over can act from the event alone.
        summary: "Customer's request: Do you ship abroad?\nAnswered: We ship worldwide.\n" +
          "Still open: Can I pay with a llama?"
      })
    }).pipe(Effect.provide(makeTestEngine())))
})
