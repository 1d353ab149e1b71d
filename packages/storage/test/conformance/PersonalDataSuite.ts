import { assert, describe, it } from "@effect/vitest"
import {
  Conversations,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CustomerExport,
  CustomerExports,
  CustomerId,
  Customers,
  Messages
} from "@support-engine/core"
import { Duration, Effect, Schema } from "effect"
import { TestClock } from "effect/testing"
import { conversationFixture } from "./ConversationsSuite.js"
import { type Adapter, as, codeOf, makeWorkspace, provideEngine } from "./Harness.js"

/** A customer's personal data (D59): the export. */
export const personalDataSuite = (adapter: Adapter) =>
  describe(`Personal data (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("D59: the export holds the customer, their conversations and only theirs, messages oldest first", () =>
      Effect.gen(function*() {
        const f = yield* conversationFixture
        const exports = yield* CustomerExports
        yield* Effect.gen(function*() {
          const conversations = yield* Conversations
          const messages = yield* Messages
          const other = yield* (yield* Customers).create(new CreateCustomer({ email: "o@x.io" }))
          const first = yield* conversations.create(new CreateConversation({ customer_id: f.customer.id }))
          const second = yield* conversations.create(new CreateConversation({ customer_id: f.customer.id }))
          yield* conversations.create(new CreateConversation({ customer_id: other.id }))
          const sent = []
          for (const content of ["one", "two", "three"]) {
            yield* TestClock.adjust(Duration.seconds(1))
            sent.push(
              yield* messages.create(
                first.id,
                new CreateMessage({ sender_type: "customer", sender_id: f.customer.id, content })
              )
            )
          }
          const exported = yield* exports.export(f.customer.id)
          assert.strictEqual(exported.customer.id, f.customer.id)
          assert.deepStrictEqual(exported.conversations.map((c) => c.id).sort(), [first.id, second.id].sort())
          const withMessages = exported.conversations.find((c) => c.id === first.id)!
          assert.deepStrictEqual(withMessages.messages.map((m) => m.content), ["one", "two", "three"])
          assert.deepStrictEqual(withMessages.messages.map((m) => m.id), sent.map((m) => m.id))
          assert.deepStrictEqual(exported.conversations.find((c) => c.id === second.id)!.messages, [])
          // The JSON the API answers: the customer and each conversation as their own endpoints show them.
          const json = Schema.encodeSync(CustomerExport)(exported)
          assert.deepStrictEqual(Object.keys(json), ["customer", "conversations"])
          assert.include(Object.keys(json.conversations[0]!), "messages")
        }).pipe(as(f.principal))
      }).pipe(provide))

    it.effect("D59, D11: the export needs customers read; a missing or foreign customer is 404", () =>
      Effect.gen(function*() {
        const f = yield* conversationFixture
        const exports = yield* CustomerExports
        const reader = yield* makeWorkspace(["customers:read"])
        const foreign = yield* codeOf(exports.export(f.customer.id).pipe(as(reader.principal)))
        assert.strictEqual(foreign, "RESOURCE_NOT_FOUND")
        const unknown = CustomerId.make("00000000-0000-4000-8000-000000000000")
        assert.strictEqual(yield* codeOf(exports.export(unknown).pipe(as(f.principal))), "RESOURCE_NOT_FOUND")
        const agentsOnly = yield* makeWorkspace(["agents:write"])
        const denied = yield* Effect.flip(exports.export(f.customer.id).pipe(as(agentsOnly.principal)))
        assert.strictEqual(denied.message, "This token lacks the customers:read (or external-api:read) ability.")
      }).pipe(provide))
  })
