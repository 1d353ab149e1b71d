import { assert, describe, it } from "@effect/vitest"
import {
  Agent,
  Agents,
  Conversation,
  Conversations,
  CreateAgent,
  CreateConversation,
  CreateCustomer,
  Customer,
  Customers,
  entityTag,
  Events,
  ListEvents,
  UpdateAgent,
  UpdateConversation,
  UpdateCustomer
} from "@support-engine/core"
import { Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import { type Adapter, as, makeWorkspace, provideEngine } from "./Harness.js"

const tagOf = entityTag(Customer)

/** Optimistic concurrency (D52): entity tags, If-Match on update and delete, atomic with the write. */
export const preconditionsSuite = (adapter: Adapter) =>
  describe(`Preconditions (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("a stale If-Match is 412 PRECONDITION_FAILED and changes nothing; a current one writes", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const customers = yield* Customers
        const events = yield* Events
        yield* Effect.gen(function*() {
          const created = yield* customers.create(new CreateCustomer({ email: "a@example.test" }))
          const v1 = tagOf(created)
          assert.match(v1, /^"[0-9a-z]{22}"$/)
          assert.strictEqual(tagOf(yield* customers.get(created.id)), v1, "an unchanged resource keeps its tag")

          yield* TestClock.adjust(Duration.millis(1))
          const updated = yield* customers.update(created.id, new UpdateCustomer({ first_name: "A" }), {
            ifMatch: v1
          })
          const v2 = tagOf(updated)
          assert.notStrictEqual(v2, v1)
          const eventsBefore = (yield* events.list(new ListEvents({}))).meta.total

          const stale = yield* Effect.flip(
            customers.update(created.id, new UpdateCustomer({ first_name: "B" }), { ifMatch: v1 })
          )
          assert.strictEqual(stale._tag, "PreconditionFailed")
          assert.strictEqual(stale.code, "PRECONDITION_FAILED")
          assert.strictEqual(stale.status, 412)
          assert.deepStrictEqual(yield* customers.get(created.id), updated)
          assert.strictEqual((yield* events.list(new ListEvents({}))).meta.total, eventsBefore, "no event")

          // A weak tag never matches (strong comparison); a list matches when one member does; * matches any.
          const weak = yield* Effect.flip(customers.delete(created.id, { ifMatch: `W/${v2}` }))
          assert.strictEqual(weak._tag, "PreconditionFailed")
          const staleDelete = yield* Effect.flip(customers.delete(created.id, { ifMatch: v1 }))
          assert.strictEqual(staleDelete._tag, "PreconditionFailed")
          assert.deepStrictEqual(yield* customers.get(created.id), updated, "still there")
          yield* customers.update(created.id, new UpdateCustomer({ last_name: "Z" }), { ifMatch: `${v1}, ${v2}` })
          yield* customers.delete(created.id, { ifMatch: "*" })
          const gone = yield* Effect.flip(customers.delete(created.id, { ifMatch: "*" }))
          assert.strictEqual(gone._tag, "NotFound")
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("two writers with the same If-Match: exactly one wins, the other is 412 (atomic check)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const conversations = yield* Conversations
        const customers = yield* Customers
        yield* Effect.gen(function*() {
          const customer = yield* customers.create(new CreateCustomer({ email: "race@example.test" }))
          const conversation = yield* conversations.create(new CreateConversation({ customer_id: customer.id }))
          const tag = entityTag(Conversation)(conversation)
          for (let round = 0; round < 5; round++) {
            const current = yield* conversations.get(conversation.id)
            const ifMatch = entityTag(Conversation)(current)
            yield* TestClock.adjust(Duration.millis(1))
            const results = yield* Effect.all(
              [["a"], ["b"]].map((tags) =>
                Effect.result(
                  conversations.update(conversation.id, new UpdateConversation({ tags: [...tags, `${round}`] }), {
                    ifMatch
                  })
                )
              ),
              { concurrency: "unbounded" }
            )
            const wins = results.filter((r) => r._tag === "Success")
            const losses = results.filter((r) => r._tag === "Failure")
            assert.strictEqual(wins.length, 1, `round ${round}`)
            assert.strictEqual(losses[0]!.failure._tag, "PreconditionFailed")
          }
          assert.notStrictEqual(tag, entityTag(Conversation)(yield* conversations.get(conversation.id)))
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("agents: If-Match on update and delete (D52)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const agents = yield* Agents
        yield* Effect.gen(function*() {
          const agent = yield* agents.create(new CreateAgent({ name: "Bot" }))
          const v1 = entityTag(Agent)(agent)
          yield* agents.update(agent.id, new UpdateAgent({ description: "x" }), { ifMatch: v1 })
          const stale = yield* Effect.flip(agents.delete(agent.id, { ifMatch: v1 }))
          assert.strictEqual(stale._tag, "PreconditionFailed")
          assert.strictEqual((yield* agents.get(agent.id)).description, "x")
        }).pipe(as(principal))
      }).pipe(provide))
  })
