import { assert, describe, it } from "@effect/vitest"
import {
  ConversationId,
  Conversations,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  Customers,
  decodeRequest,
  ListMessages,
  MAX_CONTENT_LENGTH,
  MessageId,
  Messages
} from "@support-engine/core"
import { DateTime, Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import { conversationFixture } from "./ConversationsSuite.js"
import { recordedEvents } from "./CustomersSuite.js"
import { type Adapter, as, codeOf, makeWorkspace, provideEngine } from "./Harness.js"

/** Messages (D28, D29, D34, D35). */
export const messagesSuite = (adapter: Adapter) =>
  describe(`Messages (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("senders must exist in the workspace; a customer sender must be the conversation's (D29)", () =>
      Effect.gen(function*() {
        const f = yield* conversationFixture
        const theirs = yield* conversationFixture
        const messages = yield* Messages
        yield* Effect.gen(function*() {
          const c = yield* (yield* Conversations).create(new CreateConversation({ customer_id: f.customer.id }))
          const someone = yield* (yield* Customers).create(new CreateCustomer({ first_name: "Someone" }))
          const send = (input: ConstructorParameters<typeof CreateMessage>[0]) =>
            messages.create(c.id, new CreateMessage(input))
          for (
            const [sender_type, sender_id] of [
              ["customer", someone.id],
              ["customer", theirs.customer.id],
              ["user", theirs.user.id],
              ["agent", theirs.chatAgent.id],
              ["user", f.chatAgent.id],
              ["agent", f.user.id]
            ] as const
          ) {
            assert.strictEqual(yield* codeOf(send({ sender_type, sender_id, content: "x" })), "INVALID_SENDER")
          }
          const noId = yield* Effect.flip(send({ sender_type: "user", content: "x" }))
          assert.deepStrictEqual(noId._tag === "ValidationError" && Object.keys(noId.errors), ["sender_id"])
          const systemWithId = yield* Effect.flip(send({ sender_type: "system", sender_id: f.user.id, content: "x" }))
          assert.strictEqual(systemWithId._tag, "ValidationError")

          const fromCustomer = yield* send({ sender_type: "customer", sender_id: f.customer.id, content: "help" })
          assert.strictEqual(fromCustomer.customer_id, f.customer.id)
          yield* send({ sender_type: "user", sender_id: f.user.id, content: "hi" })
          yield* send({ sender_type: "agent", sender_id: f.chatAgent.id, content: "bot" })
          const system = yield* send({ sender_type: "system", content: "assigned" })
          assert.strictEqual(system.sender_id, null)
          assert.strictEqual((yield* messages.list(new ListMessages({}))).meta.total, 4)
        }).pipe(as(f.principal))
      }).pipe(provide))

    it.effect("first_response_at, last_message_at, customer last_seen_at; events of customer, user and agent messages (D53)", () =>
      Effect.gen(function*() {
        const f = yield* conversationFixture
        const messages = yield* Messages
        const conversations = yield* Conversations
        yield* Effect.gen(function*() {
          const c = yield* conversations.create(new CreateConversation({ customer_id: f.customer.id }))
          yield* TestClock.adjust(Duration.seconds(10))
          const m1 = yield* messages.create(
            c.id,
            new CreateMessage({ sender_type: "customer", sender_id: f.customer.id, content: "help", to: ["a@x.io"] })
          )
          yield* TestClock.adjust(Duration.seconds(10))
          yield* messages.create(
            c.id,
            new CreateMessage({ sender_type: "user", sender_id: f.user.id, content: "note", is_internal: true })
          )
          let current = yield* conversations.get(c.id)
          assert.strictEqual(current.first_response_at, null, "an internal note is no response")
          assert.strictEqual(current.last_message_at?.epochMilliseconds, 20_000)
          yield* TestClock.adjust(Duration.seconds(10))
          yield* messages.create(
            c.id,
            new CreateMessage({ sender_type: "agent", sender_id: f.chatAgent.id, content: "a" })
          )
          const backdated = DateTime.makeUnsafe(5_000)
          yield* messages.create(
            c.id,
            new CreateMessage({ sender_type: "user", sender_id: f.user.id, content: "old", sent_at: backdated })
          )
          current = yield* conversations.get(c.id)
          assert.strictEqual(current.first_response_at?.epochMilliseconds, 30_000)
          assert.strictEqual(current.last_message_at?.epochMilliseconds, 30_000)
          assert.strictEqual((yield* (yield* Customers).get(f.customer.id)).last_seen_at.epochMilliseconds, 10_000)

          const events = (yield* recordedEvents).filter((e) => e.type.includes("message"))
          assert.deepStrictEqual(events.map((e) => e.type), [
            "conversation.customer.message.created",
            "conversation.user.message.created",
            "conversation.agent.message.created",
            "conversation.user.message.created"
          ])
          assert.strictEqual(events[0]!.data["conversation_id"], c.id)
          assert.deepInclude(events[0]!.data["message"], {
            id: m1.id,
            content: "help",
            sender_type: "customer",
            to: ["a@x.io"],
            sent_at: "1970-01-01T00:00:10.000+00:00"
          })

          const page = yield* messages.list(new ListMessages({ conversation_id: c.id }))
          assert.deepStrictEqual(page.data.map((m) => m.content), ["a", "note", "help", "old"])
        }).pipe(as(f.principal))
      }).pipe(provide))

    it.effect("list filters sender_type and conversation_id; delete; deleting a conversation removes its messages", () =>
      Effect.gen(function*() {
        const f = yield* conversationFixture
        const messages = yield* Messages
        const conversations = yield* Conversations
        yield* Effect.gen(function*() {
          const a = yield* conversations.create(new CreateConversation({ customer_id: f.customer.id }))
          const b = yield* conversations.create(new CreateConversation({ customer_id: f.customer.id }))
          for (const [c, type] of [[a, "customer"], [a, "system"], [b, "customer"], [b, "system"]] as const) {
            yield* messages.create(
              c.id,
              new CreateMessage({
                sender_type: type,
                ...(type === "customer" ? { sender_id: f.customer.id } : {}),
                content: `${type}`
              })
            )
            yield* TestClock.adjust(Duration.millis(1))
          }
          const system = yield* messages.list(new ListMessages({ sender_type: "system" }))
          assert.strictEqual(system.meta.total, 2)
          const ofA = yield* messages.list(new ListMessages({ conversation_id: a.id, per_page: 1 }))
          assert.deepStrictEqual([ofA.meta.total, ofA.meta.last_page, ofA.data[0]!.content], [2, 2, "system"])
          yield* messages.delete(ofA.data[0]!.id)
          assert.strictEqual(yield* codeOf(messages.delete(ofA.data[0]!.id)), "RESOURCE_NOT_FOUND")
          yield* conversations.delete(b.id)
          const all = yield* messages.list(new ListMessages({}))
          assert.deepStrictEqual([all.meta.total, all.data.map((m) => m.conversation_id)], [1, [a.id]])
          assert.strictEqual(
            yield* codeOf(messages.create(b.id, new CreateMessage({ sender_type: "system", content: "x" }))),
            "RESOURCE_NOT_FOUND"
          )
        }).pipe(as(f.principal))
      }).pipe(provide))

    it.effect("content bounds, allowed sender types and typed fields (D13, D33)", () =>
      Effect.gen(function*() {
        const decode = decodeRequest(CreateMessage)
        yield* decode({ sender_type: "system", content: "x".repeat(MAX_CONTENT_LENGTH) })
        const big = yield* Effect.flip(decode({ sender_type: "system", content: "x".repeat(MAX_CONTENT_LENGTH + 1) }))
        assert.deepStrictEqual(Object.keys(big.errors), ["content"])
        const empty = yield* Effect.flip(decode({ sender_type: "system", content: "" }))
        assert.deepStrictEqual(Object.keys(empty.errors), ["content"])
        const type = yield* Effect.flip(decode({ sender_type: "robot", content: "x" }))
        assert.deepStrictEqual(Object.keys(type.errors), ["sender_type"])
        const internal = yield* Effect.flip(decode({ sender_type: "system", content: "x", is_internal: "true" }))
        assert.deepStrictEqual(Object.keys(internal.errors), ["is_internal"])
        const query = yield* Effect.flip(decodeRequest(ListMessages)({ sender_type: "bot" }))
        assert.deepStrictEqual(Object.keys(query.errors), ["sender_type"])
      }))

    it.effect("another workspace's conversation and message are not found; read tokens cannot write", () =>
      Effect.gen(function*() {
        const f = yield* conversationFixture
        const theirs = yield* makeWorkspace()
        const messages = yield* Messages
        const c = yield* (yield* Conversations).create(new CreateConversation({ customer_id: f.customer.id })).pipe(
          as(f.principal)
        )
        const m = yield* messages.create(c.id, new CreateMessage({ sender_type: "system", content: "x" })).pipe(
          as(f.principal)
        )
        yield* Effect.gen(function*() {
          assert.strictEqual(
            yield* codeOf(messages.create(c.id, new CreateMessage({ sender_type: "system", content: "x" }))),
            "RESOURCE_NOT_FOUND"
          )
          assert.strictEqual(yield* codeOf(messages.delete(m.id)), "RESOURCE_NOT_FOUND")
          assert.strictEqual(
            yield* codeOf(messages.delete(MessageId.make(ConversationId.make(c.id)))),
            "RESOURCE_NOT_FOUND"
          )
          assert.strictEqual((yield* messages.list(new ListMessages({}))).meta.total, 0)
        }).pipe(as(theirs.principal))
        const reader = { ...f.principal, abilities: ["external-api:read" as const] }
        assert.strictEqual(yield* codeOf(messages.delete(m.id).pipe(as(reader))), "INSUFFICIENT_TOKEN_ABILITY")
        assert.strictEqual((yield* messages.list(new ListMessages({})).pipe(as(reader))).meta.total, 1)
      }).pipe(provide))
  })
