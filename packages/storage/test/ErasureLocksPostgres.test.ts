/**
 * A customer's erasure (D59) against the writers of their data on PostgreSQL, under interleavings forced by
 * transactions held open on connections of their own: every writer takes the rows in the erasure's order (the
 * customer, then their conversations, then what lies under those), so the two wait on each other instead of
 * deadlocking.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  type ConversationId,
  Conversations,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CreateWebhook,
  Customers,
  Messages,
  Webhooks,
  type WorkspaceId
} from "@support-engine/core"
import { Deferred, Effect, Exit, Fiber, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { as, makeWorkspace, provideEngine } from "./conformance/Harness.js"
import { provideWebhooks } from "./conformance/WebhookOpsSuite.js"
import { adminUrl, freshDatabase } from "./PgDatabase.js"

const Waiting = Schema.Struct({ waiting: Schema.Number, on_holder: Schema.Number })
const decodeWaiting = Schema.decodeUnknownEffect(Waiting)
const Pid = Schema.Struct({ pid: Schema.Number })
const decodePid = Schema.decodeUnknownEffect(Pid)

/**
 * Runs `statement` in a transaction of its own connection and keeps that transaction open until told to commit.
 * Answers the backend's pid once the statement has run, and how to commit; the scope's end commits at the latest, so
 * a failed test does not leave the transactions it forked waiting on it.
 */
const holdOpen = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const held = yield* Deferred.make<number>()
    const release = yield* Deferred.make<void>()
    yield* Effect.addFinalizer(() => Deferred.succeed(release, undefined))
    const fiber = yield* Effect.forkChild(
      sql.withTransaction(Effect.gen(function*() {
        yield* statement(sql)
        const [row] = yield* sql`SELECT pg_backend_pid() AS pid`
        yield* Deferred.succeed(held, (yield* decodePid(row)).pid)
        yield* Deferred.await(release)
      })).pipe(Effect.orDie)
    )
    const pid = yield* Deferred.await(held)
    return { pid, commit: Effect.andThen(Deferred.succeed(release, undefined), Fiber.join(fiber)) } as const
  })

/**
 * Waits until exactly `count` backends of this database wait on a lock, none of them on `noneOn` (a backend whose
 * transaction has just committed: what waited on it has moved on).
 */
const untilWaiting = (count: number, noneOn?: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // No backend has pid 0.
    const holder = noneOn ?? 0
    for (let polls = 0; polls < 2_000; polls++) {
      const [row] = yield* sql`SELECT COUNT(*)::int AS waiting,
        (COUNT(*) FILTER (WHERE ${holder} = ANY(pg_blocking_pids(pid))))::int AS on_holder
        FROM pg_stat_activity WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0`
      const seen = yield* decodeWaiting(row)
      if (seen.waiting === count && seen.on_holder === 0) return
      yield* Effect.sleep("5 millis")
    }
    return yield* Effect.die(`never ${count} backends waiting${noneOn === undefined ? "" : `, none on ${noneOn}`}`)
  })

const lockConversation = (workspaceId: WorkspaceId, id: ConversationId) => (sql: SqlClient.SqlClient) =>
  sql`SELECT id FROM conversations WHERE workspace_id = ${workspaceId} AND id = ${id} FOR UPDATE`

const lockMessageCounter = (workspaceId: WorkspaceId) => (sql: SqlClient.SqlClient) =>
  sql`SELECT value FROM workspace_counters WHERE workspace_id = ${workspaceId} AND name = 'messages' FOR UPDATE`

/** A customer with a conversation and their message in it; `say` posts another message of theirs. */
const customerWithMessage = Effect.gen(function*() {
  const ada = yield* (yield* Customers).create(new CreateCustomer({ email: "ada@example.test" }))
  const conversation = yield* (yield* Conversations).create(new CreateConversation({ customer_id: ada.id }))
  const messages = yield* Messages
  const say = (id: ConversationId) =>
    messages.create(id, new CreateMessage({ sender_type: "customer", sender_id: ada.id, content: "Hello" }))
  yield* say(conversation.id)
  return { ada, conversation, say } as const
})

describe.skipIf(adminUrl === undefined)("Customer erasure against concurrent writers on PostgreSQL", () => {
  const adapter = freshDatabase()

  it.live(
    "D59: a conversation created and a customer message posted to it while the erasure waits serialise with it",
    () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const workspaceId = principal.workspaceId
        yield* Effect.gen(function*() {
          const customers = yield* Customers
          const conversations = yield* Conversations
          const { ada, conversation: first, say } = yield* customerWithMessage

          // The erasure is held up at their first conversation, which another transaction holds.
          const conversationHolder = yield* holdOpen(lockConversation(workspaceId, first.id))
          // And any message post after its first writes, before it marks the customer seen.
          const counterHolder = yield* holdOpen(lockMessageCounter(workspaceId))
          const erasure = yield* Effect.forkChild(customers.erase(ada.id))
          yield* untilWaiting(1)
          // Meanwhile a new conversation of theirs, and their message to it.
          const writer = yield* Effect.forkChild(Effect.exit(Effect.gen(function*() {
            const second = yield* conversations.create(new CreateConversation({ customer_id: ada.id }))
            return yield* say(second.id)
          })))
          // Two waiting: the erasure, and the creation (or the post, had the creation not waited for the erasure).
          yield* untilWaiting(2)
          yield* conversationHolder.commit
          // The erasure goes on until it waits again: on the post, or on the message counter.
          yield* untilWaiting(2, conversationHolder.pid)
          yield* counterHolder.commit

          const erased = yield* Fiber.join(erasure)
          assert.strictEqual(erased.conversations, 1)
          assert.strictEqual(erased.messages, 1)
          const written = yield* Fiber.join(writer)
          // The creation waited for the erasure, then found no customer.
          assert.deepStrictEqual(
            Option.map(Exit.findErrorOption(written), (e) => e._tag),
            Option.some("ValidationError")
          )
          assert.strictEqual((yield* Effect.flip(customers.get(ada.id)))._tag, "NotFound")
        }).pipe(as(principal), Effect.scoped)
      }).pipe(provideEngine(adapter)),
    30_000
  )

  it.live(
    "D59: a conversation deleted while its customer is erased serialises with the erasure",
    () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        yield* Effect.gen(function*() {
          const customers = yield* Customers
          const conversations = yield* Conversations
          const { ada, conversation: doomed } = yield* customerWithMessage

          // The deletion is held up once it has deleted the messages, before the conversation.
          const counterHolder = yield* holdOpen(lockMessageCounter(principal.workspaceId))
          const deletion = yield* Effect.forkChild(conversations.delete(doomed.id))
          yield* untilWaiting(1)
          const erasure = yield* Effect.forkChild(customers.erase(ada.id))
          // The erasure waits on the deletion: for the conversation (or, had it been held first, for the messages).
          yield* untilWaiting(2)
          yield* counterHolder.commit

          yield* Fiber.join(deletion)
          const erased = yield* Fiber.join(erasure)
          assert.strictEqual(erased.conversations, 0)
          assert.strictEqual(erased.messages, 0)
          assert.strictEqual((yield* Effect.flip(customers.get(ada.id)))._tag, "NotFound")
        }).pipe(as(principal), Effect.scoped)
      }).pipe(provideEngine(adapter)),
    30_000
  )

  it.live(
    "D59: a subscription change while the erasure drops their pending fan-outs serialises with it",
    () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        yield* Effect.gen(function*() {
          const customers = yield* Customers
          const webhooks = yield* Webhooks
          yield* webhooks.create(new CreateWebhook({ url: "https://a.example/in", events: ["*"] }))
          // Their events wait for their fan-out: no dispatcher runs here.
          const { ada } = yield* customerWithMessage

          // The erasure is held up at the message counter, after its redactions, before it records its own event.
          const counterHolder = yield* holdOpen(lockMessageCounter(principal.workspaceId))
          const erasure = yield* Effect.forkChild(customers.erase(ada.id))
          yield* untilWaiting(1)
          // A subscription change: it fans out the workspace's pending events first.
          const change = yield* Effect.forkChild(
            webhooks.create(new CreateWebhook({ url: "https://b.example/in", events: ["*"] }))
          )
          yield* untilWaiting(2)
          yield* counterHolder.commit

          const erased = yield* Fiber.join(erasure)
          assert.strictEqual(erased.messages, 1)
          assert.strictEqual((yield* Fiber.join(change)).url, "https://b.example/in")
        }).pipe(as(principal), Effect.scoped)
      }).pipe(provideWebhooks(adapter)),
    30_000
  )
})
