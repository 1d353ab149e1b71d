import { assert, describe, it } from "@effect/vitest"
import {
  Agents,
  type Conversation,
  ConversationId,
  Conversations,
  CreateAgent,
  CreateConversation,
  CreateCustomer,
  CreateUser,
  CustomerId,
  Customers,
  decodeRequest,
  ListConversations,
  type PrincipalShape,
  UpdateAgent,
  UpdateConversation,
  Users
} from "@support-engine/core"
import { Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import { recordedEvents } from "./CustomersSuite.js"
import { type Adapter, as, codeOf, makeWorkspace, provideEngine } from "./Harness.js"

/** A workspace with a customer, a user, two agents (one the active email agent) and an inactive agent. */
export const conversationFixture = Effect.gen(function*() {
  const { principal, workspace } = yield* makeWorkspace()
  const user = yield* (yield* Users).create(
    new CreateUser({ workspace_id: workspace.id, name: "Sam", email: "s@x.io" })
  )
  const agents = yield* Agents
  return yield* Effect.gen(function*() {
    const customer = yield* (yield* Customers).create(new CreateCustomer({ email: "c@x.io", first_name: "Cy" }))
    const chatAgent = yield* agents.create(new CreateAgent({ name: "Chat" }))
    const otherAgent = yield* agents.create(new CreateAgent({ name: "Other" }))
    const emailAgent = yield* agents.create(new CreateAgent({ name: "Mail" }))
    yield* agents.setEmailAgent(workspace.id, emailAgent.id)
    return { principal, workspace, user, customer, chatAgent, otherAgent, emailAgent }
  }).pipe(as(principal))
}).pipe(Effect.orDie)

/** Conversations (D26-D28, D34, D35). */
export const conversationsSuite = (adapter: Adapter) =>
  describe(`Conversations (${adapter.name})`, () => {
    const provide = provideEngine(adapter)
    const inWorkspace = <A, E, R>(principal: PrincipalShape, self: Effect.Effect<A, E, R>) => as(principal)(self)

    it.effect("creates with the D26 defaults; conversation.created data exactly as specified (D35)", () =>
      Effect.gen(function*() {
        const f = yield* conversationFixture
        const conversations = yield* Conversations
        yield* inWorkspace(
          f.principal,
          Effect.gen(function*() {
            const c = yield* conversations.create(new CreateConversation({ customer_id: f.customer.id, subject: "Hi" }))
            assert.deepInclude({ ...c }, {
              channel: "chat",
              status: "open",
              priority: "normal",
              assignee_id: null,
              assignee_type: null,
              agent_id: null,
              closed_at: null,
              first_response_at: null,
              last_message_at: null,
              is_spam: false,
              spam_score: 0
            })
            assert.deepStrictEqual(yield* conversations.get(c.id), c)
            const events = (yield* recordedEvents).filter((e) => e.type.startsWith("conversation."))
            assert.deepStrictEqual(events.map((e) => e.type), ["conversation.created"])
            assert.deepStrictEqual(events[0]!.data, {
              id: c.id,
              title: "Hi",
              status: "open",
              priority: "normal",
              channel: "chat",
              assignee_id: null,
              assignee_type: null,
              customer_id: f.customer.id,
              created_at: "1970-01-01T00:00:00.000+00:00",
              updated_at: "1970-01-01T00:00:00.000+00:00"
            })
          })
        )
      }).pipe(provide))

    it.effect("the customer must be of the workspace (422); limits and allowed values (D13, D26)", () =>
      Effect.gen(function*() {
        const f = yield* conversationFixture
        const other = yield* makeWorkspace()
        const foreign = yield* (yield* Customers).create(new CreateCustomer({ first_name: "F" })).pipe(
          as(other.principal)
        )
        const conversations = yield* Conversations
        for (const customer_id of [foreign.id, CustomerId.make("00000000-0000-7000-8000-000000000009")]) {
          const error = yield* Effect.flip(conversations.create(new CreateConversation({ customer_id }))).pipe(
            as(f.principal)
          )
          assert.deepStrictEqual(error._tag === "ValidationError" && Object.keys(error.errors), ["customer_id"])
        }
        const decode = decodeRequest(CreateConversation)
        yield* decode({ customer_id: f.customer.id, subject: "s".repeat(500) })
        const long = yield* Effect.flip(decode({ customer_id: f.customer.id, subject: "s".repeat(501) }))
        assert.deepStrictEqual(Object.keys(long.errors), ["subject"])
        for (const [field, value] of [["channel", "sms"], ["priority", "critical"], ["assignee_type", "team"]]) {
          const error = yield* Effect.flip(decode({ customer_id: f.customer.id, [field!]: value }))
          assert.deepStrictEqual(Object.keys(error.errors), [field])
        }
        const status = yield* Effect.flip(decodeRequest(UpdateConversation)({ status: "pending" }))
        assert.deepStrictEqual(Object.keys(status.errors), ["status"])
        const missing = yield* Effect.flip(decode({}))
        assert.deepStrictEqual(Object.keys(missing.errors), ["customer_id"])
        const agentOnEmail = yield* Effect.flip(conversations.create(
          new CreateConversation({ customer_id: f.customer.id, channel: "email", agent_id: f.chatAgent.id })
        )).pipe(as(f.principal))
        assert.deepStrictEqual(agentOnEmail._tag === "ValidationError" && Object.keys(agentOnEmail.errors), [
          "agent_id"
        ])
        assert.deepStrictEqual(
          (yield* recordedEvents.pipe(as(f.principal))).filter((e) => e.type.startsWith("conversation.")),
          []
        )
      }).pipe(provide))

    it.effect("the assignment matrix end to end, including another workspace's user and agent (D27)", () =>
      Effect.gen(function*() {
        const f = yield* conversationFixture
        const theirs = yield* conversationFixture
        const conversations = yield* Conversations
        const agents = yield* Agents
        yield* inWorkspace(
          f.principal,
          Effect.gen(function*() {
            const chat = (input: Partial<ConstructorParameters<typeof CreateConversation>[0]>) =>
              conversations.create(new CreateConversation({ customer_id: f.customer.id, ...input }))
            const email = (input: Partial<ConstructorParameters<typeof CreateConversation>[0]>) =>
              chat({ channel: "email", ...input })

            const toUser = yield* chat({ assignee_id: f.user.id })
            assert.deepStrictEqual([toUser.assignee_id, toUser.assignee_type], [f.user.id, "user"])
            assert.strictEqual((yield* email({ assignee_id: f.user.id, assignee_type: "user" })).assignee_type, "user")

            assert.strictEqual(yield* codeOf(chat({ assignee_id: theirs.user.id })), "INVALID_ASSIGNEE")
            assert.strictEqual(yield* codeOf(chat({ assignee_id: theirs.chatAgent.id })), "INVALID_ASSIGNEE")
            assert.strictEqual(
              yield* codeOf(chat({ assignee_id: "00000000-0000-7000-8000-00000000000f" })),
              "INVALID_ASSIGNEE"
            )
            assert.strictEqual(
              yield* codeOf(chat({ assignee_id: f.user.id, assignee_type: "agent" })),
              "INVALID_ASSIGNEE_TYPE"
            )

            const chatByAgent = yield* chat({ assignee_id: f.chatAgent.id })
            assert.deepStrictEqual([chatByAgent.assignee_type, chatByAgent.agent_id], ["agent", f.chatAgent.id])
            assert.strictEqual(
              yield* codeOf(
                conversations.update(chatByAgent.id, new UpdateConversation({ assignee_id: f.otherAgent.id }))
              ),
              "INVALID_ASSIGNEE_TYPE"
            )
            const back = yield* conversations.update(chatByAgent.id, new UpdateConversation({ assignee_id: f.user.id }))
            assert.strictEqual(back.assignee_type, "user")
            const again = yield* conversations.update(
              chatByAgent.id,
              new UpdateConversation({ assignee_id: f.chatAgent.id })
            )
            assert.strictEqual(again.assignee_id, f.chatAgent.id)
            assert.strictEqual(
              yield* codeOf(chat({ agent_id: f.chatAgent.id, assignee_id: f.otherAgent.id })),
              "INVALID_ASSIGNEE_TYPE"
            )

            assert.strictEqual((yield* email({ assignee_id: f.emailAgent.id })).assignee_id, f.emailAgent.id)
            assert.strictEqual(yield* codeOf(email({ assignee_id: f.chatAgent.id })), "INVALID_ASSIGNEE_TYPE")
            yield* agents.update(f.emailAgent.id, new UpdateAgent({ is_active: false }))
            assert.strictEqual(yield* codeOf(email({ assignee_id: f.emailAgent.id })), "INVALID_ASSIGNEE_TYPE")

            const unassigned = yield* conversations.update(toUser.id, new UpdateConversation({ assignee_id: null }))
            assert.deepStrictEqual([unassigned.assignee_id, unassigned.assignee_type], [null, null])

            const created = (yield* recordedEvents).filter((e) => e.type === "conversation.created")
            assert.strictEqual(created.length, 4, "four creates succeeded; the refused ones recorded nothing")
            assert.strictEqual((yield* conversations.list(new ListConversations({}))).meta.total, 4)
          })
        )
      }).pipe(provide))

    it.effect("one event per changed aspect with previous values; none for a no-op (D28, D34, D35)", () =>
      Effect.gen(function*() {
        const f = yield* conversationFixture
        const conversations = yield* Conversations
        yield* inWorkspace(
          f.principal,
          Effect.gen(function*() {
            const c = yield* conversations.create(new CreateConversation({ customer_id: f.customer.id, tags: ["a"] }))
            yield* TestClock.adjust(Duration.seconds(1))
            const closed = yield* conversations.update(
              c.id,
              new UpdateConversation({
                status: "closed",
                priority: "urgent",
                assignee_id: f.user.id,
                tags: ["b", "a", "b"],
                subject: "New"
              })
            )
            assert.strictEqual(closed.closed_at?.epochMilliseconds, 1000)
            assert.deepStrictEqual(closed.tags, ["b", "a"])
            const noop = yield* conversations.update(
              c.id,
              new UpdateConversation({
                status: "closed",
                priority: "urgent",
                tags: ["a", "b"],
                assignee_id: f.user.id
              })
            )
            assert.deepStrictEqual(noop, closed)
            yield* TestClock.adjust(Duration.seconds(1))
            const reopened = yield* conversations.update(c.id, new UpdateConversation({ status: "open" }))
            assert.strictEqual(reopened.closed_at, null)
            const quiet = yield* conversations.update(c.id, new UpdateConversation({ is_spam: true }))
            assert.isTrue(quiet.is_spam)

            const events = (yield* recordedEvents).filter((e) => e.type.startsWith("conversation."))
            assert.deepStrictEqual(events.map((e) => e.type), [
              "conversation.created",
              "conversation.assigned.updated",
              "conversation.status.updated",
              "conversation.priority.updated",
              "conversation.tags.updated",
              "conversation.status.updated"
            ])
            const byType = (i: number) => events[i]!.data
            assert.deepStrictEqual(byType(1)["previous"], { assignee_id: null, assignee_type: null })
            assert.deepStrictEqual(byType(2)["previous"], { status: "open", closed_at: null })
            assert.deepStrictEqual(byType(3)["previous"], { priority: "normal" })
            assert.deepStrictEqual(byType(4)["previous"], { tags: ["a"] })
            assert.deepStrictEqual(byType(5)["previous"], {
              status: "closed",
              closed_at: "1970-01-01T00:00:01.000+00:00"
            })
            assert.deepInclude(byType(2), {
              title: "New",
              status: "closed",
              priority: "urgent",
              assignee_id: f.user.id,
              assignee_type: "user",
              closed_at: "1970-01-01T00:00:01.000+00:00"
            })
            assert.deepStrictEqual(byType(2)["tags"], ["b", "a"])
            yield* conversations.delete(c.id)
            const last = (yield* recordedEvents).at(-1)!
            assert.deepStrictEqual([last.type, last.data], ["conversation.deleted", { id: c.id }])
          })
        )
      }).pipe(provide))

    it.effect("list filters with exact totals, newest first (D26, D18)", () =>
      Effect.gen(function*() {
        const f = yield* conversationFixture
        const conversations = yield* Conversations
        yield* inWorkspace(
          f.principal,
          Effect.gen(function*() {
            const made: Array<Conversation> = []
            for (const [channel, priority] of [["chat", "low"], ["email", "high"], ["chat", "high"]] as const) {
              made.push(
                yield* conversations.create(new CreateConversation({ customer_id: f.customer.id, channel, priority }))
              )
              yield* TestClock.adjust(Duration.millis(1))
            }
            yield* conversations.update(
              made[0]!.id,
              new UpdateConversation({ status: "closed", assignee_id: f.user.id })
            )
            const check = (query: ConstructorParameters<typeof ListConversations>[0], expected: Array<number>) =>
              Effect.gen(function*() {
                const page = yield* conversations.list(new ListConversations(query))
                assert.deepStrictEqual(page.data.map((c) => c.id), expected.map((i) => made[i]!.id))
                assert.strictEqual(page.meta.total, expected.length)
              })
            yield* check({}, [2, 1, 0])
            yield* check({ channel: "chat" }, [2, 0])
            yield* check({ priority: "high" }, [2, 1])
            yield* check({ status: "closed" }, [0])
            yield* check({ status: "open", channel: "chat" }, [2])
            yield* check({ assignee_id: f.user.id }, [0])
            yield* check({ customer_id: f.customer.id, per_page: 100 }, [2, 1, 0])
          })
        )
      }).pipe(provide))

    it.effect("another workspace's conversation is not found; read tokens cannot write (D10, D11)", () =>
      Effect.gen(function*() {
        const f = yield* conversationFixture
        const theirs = yield* makeWorkspace()
        const conversations = yield* Conversations
        const c = yield* conversations.create(new CreateConversation({ customer_id: f.customer.id })).pipe(
          as(f.principal)
        )
        for (const id of [c.id, ConversationId.make("00000000-0000-7000-8000-00000000000e")]) {
          for (
            const error of yield* Effect.all([
              Effect.flip(conversations.get(id)),
              Effect.flip(conversations.update(id, new UpdateConversation({ status: "closed" }))),
              Effect.flip(conversations.delete(id))
            ]).pipe(as(theirs.principal))
          ) assert.strictEqual(error._tag, "NotFound")
        }
        const reader = { ...f.principal, abilities: ["external-api:read" as const] }
        yield* conversations.get(c.id).pipe(as(reader))
        assert.strictEqual(
          yield* codeOf(conversations.update(c.id, new UpdateConversation({ status: "closed" })).pipe(as(reader))),
          "INSUFFICIENT_TOKEN_ABILITY"
        )
      }).pipe(provide))
  })

export type Fixture = Effect.Success<typeof conversationFixture>
