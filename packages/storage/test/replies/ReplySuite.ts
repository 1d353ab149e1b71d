/** The AI reply loop (D53) on one database: replies with citations, each handoff, escalation per channel, limits. */
import { assert, describe, it } from "@effect/vitest"
import {
  Agents,
  AnswerModel,
  Conversations,
  CreateMessage,
  CreateTrainingData,
  type EventType,
  Messages,
  ModelFailed,
  ReplyWorker,
  Training,
  UpdateAgent,
  UpdateConversation,
  type User
} from "@support-engine/core"
import { Deferred, Effect, Fiber, Layer, Option, Queue } from "effect"
import { TestClock } from "effect/testing"
import { type Adapter, as, engineLayer, makeWorkspace, type TestEngine, withTracing } from "../conformance/Harness.js"
import { drainTraining, fixture, REFUNDS } from "./Fixture.js"

/** Runs a test on a fresh engine over the adapter, with another answer model when given. */
export const onEngine =
  (adapter: Adapter, model?: Layer.Layer<AnswerModel>) => <A, E>(self: Effect.Effect<A, E, TestEngine>) =>
    self.pipe(
      withTracing(adapter),
      Effect.provide(model === undefined ? engineLayer(adapter) : engineLayer(adapter).pipe(Layer.provide(model)))
    )

const escalationOf = (f: Effect.Success<ReturnType<typeof fixture>>) =>
  Effect.gen(function*() {
    const data = (type: EventType) => Effect.map(f.eventsOf(type), (es) => es.map((e) => e.data))
    return { escalated: yield* data("conversation.escalated"), assigned: yield* data("conversation.assigned.updated") }
  })

export const replySuite = (adapter: Adapter) =>
  describe(`AI reply loop (${adapter.name})`, () => {
    const provide = onEngine(adapter)

    it.effect("answers a customer message with citations, as the agent, with its event (D53, D35)", () =>
      Effect.gen(function*() {
        const f = yield* fixture()
        const asked = yield* f.say("How long do refunds take?")
        // Enqueued with the message, before any worker ran.
        assert.deepStrictEqual(yield* f.jobOf(asked.id), [{ status: "pending", outcome: null }])
        yield* f.answer
        const thread = yield* f.thread
        assert.strictEqual(thread.length, 2)
        const reply = thread[1]!
        assert.deepStrictEqual(
          [reply.sender_type, reply.sender_id, reply.content, reply.is_internal],
          ["agent", f.agent.id, REFUNDS, false]
        )
        assert.deepStrictEqual(reply.citations.map((c) => ({ ...c })), [
          { type: "training_data", id: f.item.id, title: "Refund policy", url: null }
        ])
        assert.deepStrictEqual(thread[0]!.citations, [], "other messages have an empty list")
        assert.deepStrictEqual(yield* f.jobOf(asked.id), [{ status: "done", outcome: "replied" }])
        const [event] = yield* f.eventsOf("conversation.agent.message.created")
        assert.strictEqual(event?.actor.type, "agent")
        assert.strictEqual(event?.actor.id, f.agent.id)
        const message = event?.data["message"] as { id: string; citations: ReadonlyArray<{ id: string }> }
        assert.deepStrictEqual([event?.data["conversation_id"], message.id, message.citations[0]?.id], [
          f.conversation.id,
          reply.id,
          f.item.id
        ])
        assert.strictEqual((yield* f.current).first_response_at?.epochMilliseconds, reply.sent_at.epochMilliseconds)
        // Nothing more to do: the job is done and never answered twice.
        assert.isFalse(yield* (yield* ReplyWorker).processNext, "no job is due")
        assert.strictEqual((yield* f.thread).length, 2)
      }).pipe(provide))

    it.effect("no_answer: nothing relevant hands off to nobody, with a note and both events (D53, D34)", () =>
      Effect.gen(function*() {
        const f = yield* fixture()
        yield* f.say("Can I pay with a llama?")
        yield* f.answer
        const thread = yield* f.thread
        assert.deepStrictEqual(thread.map((m) => [m.sender_type, m.is_internal]), [["customer", false], [
          "system",
          true
        ]])
        assert.match(thread[1]!.content, /nothing in its training data/)
        const c = yield* f.current
        assert.deepStrictEqual([c.assignee_id, c.assignee_type], [null, null])
        const { assigned, escalated } = yield* escalationOf(f)
        assert.deepStrictEqual(escalated, [{
          conversation_id: f.conversation.id,
          reason: "no_answer",
          rule_id: null,
          assignee_id: null,
          summary: "Customer's request: Can I pay with a llama?\nStill open: the request above."
        }])
        assert.deepStrictEqual(assigned.map((d) => [d["assignee_id"], d["previous"]]), [[null, {
          assignee_id: f.agent.id,
          assignee_type: "agent"
        }]])
        // Unassigned: the next message enqueues nothing.
        const next = yield* f.say("Hello?")
        assert.deepStrictEqual(yield* f.jobOf(next.id), [])
      }).pipe(provide))

    it.effect("escalation rules apply per channel; a matching rule reassigns to its user (D53)", () =>
      Effect.gen(function*() {
        const rules = (channel: "chat" | "email") => (user: User) => ({
          escalation_rules: [
            { channel, rule: "customer wants a \"human agent\"", escalate_to: user.id },
            { channel: channel === "chat" ? "email" as const : "chat" as const, rule: "refunds", escalate_to: user.id }
          ]
        })
        for (const channel of ["chat", "email"] as const) {
          const f = yield* fixture({ channel, agent: rules(channel) })
          // The other channel's rule ("refunds") does not apply: answered.
          yield* f.say("How long do refunds take?")
          yield* f.answer
          assert.strictEqual((yield* f.thread)[1]?.sender_type, "agent", channel)
          yield* f.say("Let me talk to a human agent please")
          yield* f.answer
          const c = yield* f.current
          assert.deepStrictEqual([c.assignee_id, c.assignee_type], [f.user.id, "user"], channel)
          const { assigned, escalated } = yield* escalationOf(f)
          const rule = (yield* (yield* Agents).get(f.agent.id).pipe(as(f.principal))).escalation_rules[0]!
          assert.deepStrictEqual(escalated, [{
            conversation_id: f.conversation.id,
            reason: "escalation_rule",
            rule_id: rule.id,
            assignee_id: f.user.id,
            summary: `Customer's request: How long do refunds take?\nAnswered: ${REFUNDS}\n` +
              "Still open: Let me talk to a human agent please"
          }])
          assert.deepStrictEqual(assigned.map((d) => [d["assignee_id"], d["assignee_type"]]), [[f.user.id, "user"]])
          assert.match((yield* f.thread).at(-1)!.content, /human agent/)
        }
      }).pipe(provide))

    it.effect("prohibited_phrase: a draft that still has the phrase when drafted again is never sent (D53)", () =>
      Effect.gen(function*() {
        const f = yield* fixture({
          content: "We guarantee refunds within five working days.",
          agent: () => ({ prohibited_phrases: [{ phrase: "guarantee" }] })
        })
        yield* f.say("How long do refunds take?")
        yield* f.answer
        const thread = yield* f.thread
        assert.deepStrictEqual(thread.map((m) => m.sender_type), ["customer", "system"])
        assert.isFalse(thread.some((m) => /guarantee/.test(m.content)))
        const { escalated } = yield* escalationOf(f)
        assert.deepStrictEqual(escalated.map((d) => d["reason"]), ["prohibited_phrase"])
      }).pipe(provide))

    it.effect("usage_limit: after max_messages_per_session replies since the conversation was opened (D53)", () =>
      Effect.gen(function*() {
        const f = yield* fixture({ agent: () => ({ max_messages_per_session: 2 }) })
        for (let i = 0; i < 3; i++) {
          yield* f.say(`Refunds question ${i}`)
          yield* f.answer
        }
        assert.deepStrictEqual((yield* f.thread).map((m) => m.sender_type), [
          "customer",
          "agent",
          "customer",
          "agent",
          "customer",
          "system"
        ])
        assert.deepStrictEqual((yield* escalationOf(f)).escalated.map((d) => d["reason"]), ["usage_limit"])
        // Closed and opened again, assigned back to the agent: a new session, answered again.
        const conversations = yield* Conversations
        const update = (u: ConstructorParameters<typeof UpdateConversation>[0]) =>
          conversations.update(f.conversation.id, new UpdateConversation(u)).pipe(as(f.principal))
        yield* update({ assignee_id: f.agent.id, assignee_type: "agent" })
        yield* f.say("Refunds again")
        yield* f.answer
        assert.strictEqual((yield* f.thread).at(-1)?.sender_type, "system", "still the same session")
        yield* update({ assignee_id: f.agent.id, assignee_type: "agent" })
        yield* TestClock.adjust("1 minute")
        yield* update({ status: "closed" })
        yield* update({ status: "open" })
        yield* f.say("Refunds once more")
        yield* f.answer
        assert.strictEqual((yield* f.thread).at(-1)?.sender_type, "agent", "a new session after reopening")
      }).pipe(provide))

    it.effect("copilot, inactive and auto_reply=false agents never answer; nor do closed or spam conversations", () =>
      Effect.gen(function*() {
        const cases = [
          yield* fixture({ copilot: true }),
          yield* fixture({ agent: () => ({ is_active: false }) }),
          yield* fixture({ agent: () => ({ auto_reply: false }) })
        ]
        const conversations = yield* Conversations
        const closed = yield* fixture()
        yield* conversations.update(closed.conversation.id, new UpdateConversation({ status: "closed" })).pipe(
          as(closed.principal)
        )
        const spam = yield* fixture()
        yield* conversations.update(spam.conversation.id, new UpdateConversation({ is_spam: true })).pipe(
          as(spam.principal)
        )
        for (const f of [...cases, closed, spam]) {
          const asked = yield* f.say("How long do refunds take?")
          assert.deepStrictEqual(yield* f.jobOf(asked.id), [], "no job is enqueued")
          yield* f.answer
          assert.deepStrictEqual((yield* f.thread).map((m) => m.sender_type), ["customer"])
        }
        // Switched off after the job was enqueued: the job is skipped, nothing is sent.
        const late = yield* fixture()
        const asked = yield* late.say("How long do refunds take?")
        yield* (yield* Agents).update(late.agent.id, new UpdateAgent({ auto_reply: false })).pipe(as(late.principal))
        yield* late.answer
        assert.deepStrictEqual(yield* late.jobOf(asked.id), [{ status: "done", outcome: "skipped" }])
        assert.deepStrictEqual((yield* late.thread).map((m) => m.sender_type), ["customer"])
      }).pipe(provide))

    it.effect("an agent never retrieves another workspace's content (D11, D53)", () =>
      Effect.gen(function*() {
        const other = yield* makeWorkspace()
        const theirs = yield* (yield* Training).create(
          new CreateTrainingData({ type: "text", title: "Shipping", content: "Parcels ship by llama express." })
        ).pipe(as(other.principal))
        yield* drainTraining
        const f = yield* fixture()
        yield* f.say("Do parcels ship by llama express?")
        yield* f.answer
        const thread = yield* f.thread
        assert.isFalse(thread.some((m) => m.citations.some((c) => c.id === theirs.id)))
        assert.deepStrictEqual((yield* escalationOf(f)).escalated.map((d) => d["reason"]), ["no_answer"])
      }).pipe(provide))

    it.effect("the model's history: public messages, oldest first, no internal notes, no later questions (D53)", () => {
      const histories: Array<ReadonlyArray<string>> = []
      const recording = Layer.succeed(AnswerModel, {
        answer: (request) =>
          Effect.sync(() => {
            histories.push(request.history.map((h) => `${h.role}: ${h.content}`))
            return request.passages[0]!.text
          }),
        matchRule: () => Effect.succeed(Option.none())
      })
      return Effect.gen(function*() {
        const f = yield* fixture()
        yield* f.say("How long do refunds take?")
        yield* f.answer
        yield* (yield* Messages).create(
          f.conversation.id,
          new CreateMessage({ sender_type: "user", sender_id: f.user.id, content: "VIP customer", is_internal: true })
        ).pipe(as(f.principal))
        yield* TestClock.adjust("1 second")
        yield* f.say("Are refunds paid by card?")
        yield* TestClock.adjust("1 second")
        yield* f.say("Refunds for gifts too?")
        yield* f.answer
        assert.deepStrictEqual(histories, [
          [],
          // Not the third message, sent before this one was answered: it has its own job.
          ["customer: How long do refunds take?", `agent: ${REFUNDS}`],
          // The third message waited for the second's reply (order of the messages) and sees it.
          [
            "customer: How long do refunds take?",
            `agent: ${REFUNDS}`,
            "customer: Are refunds paid by card?",
            `agent: ${REFUNDS}`
          ]
        ])
      }).pipe(onEngine(adapter, recording))
    })

    it.effect("a person who takes the conversation while the model answers gets no reply sent over them (D53)", () => {
      const called = Effect.runSync(Deferred.make<void>())
      const release = Effect.runSync(Deferred.make<void>())
      const gated = Layer.succeed(AnswerModel, {
        answer: (request) =>
          Deferred.succeed(called, undefined).pipe(
            Effect.andThen(Deferred.await(release)),
            Effect.as(request.passages[0]!.text)
          ),
        matchRule: () => Effect.succeed(Option.none())
      })
      return Effect.gen(function*() {
        const f = yield* fixture()
        const asked = yield* f.say("How long do refunds take?")
        const fiber = yield* Effect.forkChild(f.answer)
        yield* Deferred.await(called)
        yield* (yield* Conversations).update(
          f.conversation.id,
          new UpdateConversation({ assignee_id: f.user.id, assignee_type: "user" })
        ).pipe(as(f.principal))
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(fiber)
        assert.deepStrictEqual(yield* f.jobOf(asked.id), [{ status: "done", outcome: "skipped" }])
        assert.deepStrictEqual((yield* f.thread).map((m) => m.sender_type), ["customer"])
        const c = yield* f.current
        assert.deepStrictEqual([c.assignee_id, c.assignee_type], [f.user.id, "user"])
      }).pipe(onEngine(adapter, gated))
    })

    it.effect("model_error: a model failing after its retries hands off (D53)", () => {
      const calls = Effect.runSync(Queue.unbounded<void>())
      let summaries = 0
      const failing = Layer.succeed(AnswerModel, {
        answer: () => Effect.andThen(Queue.offer(calls, undefined), Effect.fail(new ModelFailed({ message: "down" }))),
        matchRule: () => Effect.succeed(Option.none()),
        summarize: () => Effect.sync(() => `summary ${++summaries}`)
      })
      return Effect.gen(function*() {
        const f = yield* fixture()
        yield* f.say("How long do refunds take?")
        const fiber = yield* Effect.forkChild(f.answer)
        // Three calls: the first, then retries 1 s and 2 s later on Effect's clock.
        yield* Queue.take(calls)
        for (const seconds of [1, 2]) {
          yield* Effect.yieldNow
          yield* TestClock.adjust(`${seconds} seconds`)
          yield* Queue.take(calls)
        }
        yield* Fiber.join(fiber)
        assert.deepStrictEqual((yield* escalationOf(f)).escalated.map((d) => [d["reason"], d["summary"]]), [[
          "model_error",
          "Customer's request: How long do refunds take?\nStill open: the request above."
        ]])
        assert.strictEqual(summaries, 0, "D61: the model that failed is not asked for the summary")
        assert.deepStrictEqual((yield* f.thread).map((m) => m.sender_type), ["customer", "system"])
      }).pipe(onEngine(adapter, failing))
    })
  })
