/**
 * The AI reply loop over HTTP (D3, D53): the server's engine runs the reply worker, so a customer message posted
 * through the API is answered by the agent with `citations`, and the agent's event is in the log.
 */
import { assert, layer } from "@effect/vitest"
import { aiRepliesTotal } from "@support-engine/core"
import { Effect, Metric, Schedule } from "effect"
import { processed, raw, tenant, testServer } from "./Harness.js"

interface MessageBody {
  readonly id: string
  readonly sender_type: string
  readonly sender_id: string | null
  readonly content: string
  readonly citations: ReadonlyArray<{ type: string; id: string; title: string; url: string | null }>
}

layer(testServer("agent-replies"), { excludeTestServices: true })("agent replies", (it) => {
  it.effect("a customer message to an auto_reply agent is answered with citations; other messages have []", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const agent = yield* client.agents.create({ payload: { name: "Bot", auto_reply: true } })
      const item = yield* client.training.create({
        payload: { type: "text", title: "Refund policy", content: "Refunds are paid back within five working days." }
      })
      yield* processed(client, item.id)
      const customer = yield* client.customers.create({ payload: { email: "ada@example.com" } })
      const conversation = yield* client.conversations.create({
        payload: { customer_id: customer.id, assignee_id: agent.id, assignee_type: "agent" }
      })
      const posted = yield* raw("POST", `/v1/conversations/${conversation.id}/messages`, {
        token,
        json: { sender_type: "customer", sender_id: customer.id, content: "How long do refunds take?" }
      })
      assert.strictEqual(posted.status, 201)
      assert.deepStrictEqual((posted.body as MessageBody).citations, [])

      // The server's reply worker answers in the background: poll the conversation's messages.
      const messages = yield* raw("GET", `/v1/messages?conversation_id=${conversation.id}`, { token }).pipe(
        Effect.map((r) => (r.body as { data: ReadonlyArray<MessageBody> }).data),
        Effect.filterOrFail((data) => data.length >= 2),
        Effect.retry(Schedule.spaced("20 millis")),
        Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.fail(new Error("no reply")) }),
        Effect.orDie
      )
      const reply = messages.find((m) => m.sender_type === "agent")!
      // Counted once its transaction committed (D57).
      const answered = yield* Metric.value(Metric.withAttributes(aiRepliesTotal, { outcome: "answered" }))
      assert.strictEqual(answered.count, 1)
      assert.deepStrictEqual([reply.sender_id, reply.content, reply.citations], [
        agent.id,
        "Refunds are paid back within five working days.",
        [{ type: "training_data", id: item.id, title: "Refund policy", url: null }]
      ])
      // The typed client decodes the same field.
      const typed = yield* client.messages.list({ query: { conversation_id: conversation.id } })
      assert.deepStrictEqual(typed.data.map((m) => m.citations.length).sort(), [0, 1])
      const events = yield* raw("GET", "/v1/events?event=conversation.agent.message.created", { token })
      const [event] = (events.body as { data: ReadonlyArray<{ actor: unknown; data: { message: MessageBody } }> }).data
      assert.deepStrictEqual([event?.actor, event?.data.message.id], [{ type: "agent", id: agent.id }, reply.id])
    }))

  it.effect("a question the agent cannot answer is handed off and counted under its reason (D57)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const agent = yield* client.agents.create({ payload: { name: "Unread", auto_reply: true } })
      const customer = yield* client.customers.create({ payload: { email: "bob@example.com" } })
      const conversation = yield* client.conversations.create({
        payload: { customer_id: customer.id, assignee_id: agent.id, assignee_type: "agent" }
      })
      const counted = Metric.withAttributes(aiRepliesTotal, { outcome: "no_answer" })
      const before = (yield* Metric.value(counted)).count
      const posted = yield* raw("POST", `/v1/conversations/${conversation.id}/messages`, {
        token,
        json: { sender_type: "customer", sender_id: customer.id, content: "Which colour is the moon on Tuesdays?" }
      })
      assert.strictEqual(posted.status, 201)
      yield* Metric.value(counted).pipe(
        Effect.filterOrFail((state) => state.count > before),
        Effect.retry(Schedule.spaced("20 millis")),
        Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.fail(new Error("not handed off")) }),
        Effect.orDie
      )
      const events = yield* raw("GET", "/v1/events?event=conversation.escalated", { token })
      const data = (events.body as { data: ReadonlyArray<{ data: { reason?: string } }> }).data
      assert.strictEqual(data.length, 1)
    }))
})
