/**
 * A customer's erasure (D59): everything of theirs gone or redacted in one transaction, the same on both databases,
 * and nothing of theirs left readable when messages are posted to them and their deliveries retried meanwhile.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  Agents,
  type ClaimedDelivery,
  type ConversationId,
  Conversations,
  CreateAgent,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CreateWebhook,
  type CustomerId,
  Customers,
  DeliveryOutcome,
  DeliveryQueue,
  Events,
  ListConversations,
  ListCustomers,
  ListEvents,
  ListMessages,
  ListWebhookDeliveries,
  Messages,
  type PrincipalShape,
  Webhooks,
  type WorkspaceId
} from "@support-engine/core"
import { DateTime, Effect, Fiber, Ref, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { type Adapter, as, codeOf, fanOutPending, makeWorkspace } from "./Harness.js"
import { attemptAt, drain, provideWebhooks } from "./WebhookOpsSuite.js"

/** Rows of a search table that match `word`, read from the table itself rather than through the API. */
const searchRows = (table: string, word: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.onDialectOrElse({
      pg: () => sql`SELECT COUNT(*) AS n FROM ${sql.literal(table)} WHERE document @@ to_tsquery('simple', ${word})`,
      orElse: () => sql`SELECT COUNT(*) AS n FROM ${sql.literal(table)} WHERE ${sql.literal(table)} MATCH ${word}`
    })).pipe(Effect.map((rows) => Number(rows[0]!["n"])), Effect.orDie)

/** Every stored text of the workspace that could hold their data: event data, stored answers, attempt excerpts. */
const storedTexts = (workspaceId: WorkspaceId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const text = sql.onDialectOrElse({ pg: () => sql`e.data::text`, orElse: () => sql`e.data` })
    return Effect.all({
      events: sql`SELECT e.id, e.event, ${text} AS data FROM events e WHERE e.workspace_id = ${workspaceId}`,
      payloads:
        sql`SELECT d.status, e.event, ${text} AS data FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
        WHERE d.workspace_id = ${workspaceId}`,
      answers: sql`SELECT body FROM idempotency_keys WHERE workspace_id = ${workspaceId}`,
      excerpts: sql`SELECT a.response_excerpt FROM webhook_delivery_attempts a
        JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.workspace_id = ${workspaceId}`,
      replyJobs: sql`SELECT conversation_id FROM reply_jobs WHERE workspace_id = ${workspaceId}`
    })
  }).pipe(Effect.orDie)

/** Nothing of the erased customer readable through the services, the search tables and the stored texts. */
const assertNothingOf = (
  principal: PrincipalShape,
  customerId: CustomerId,
  conversationIds: ReadonlyArray<ConversationId>,
  word: string
) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const conversations = yield* Conversations
    const messages = yield* Messages
    assert.strictEqual(yield* codeOf(customers.get(customerId)), "RESOURCE_NOT_FOUND")
    assert.deepStrictEqual((yield* customers.list(new ListCustomers({ q: word }))).data, [])
    assert.deepStrictEqual(
      (yield* conversations.list(new ListConversations({ customer_id: customerId }))).data,
      []
    )
    assert.deepStrictEqual((yield* conversations.list(new ListConversations({ q: word }))).data, [])
    for (const id of conversationIds) {
      assert.strictEqual(yield* codeOf(conversations.get(id)), "RESOURCE_NOT_FOUND")
      assert.deepStrictEqual((yield* messages.list(new ListMessages({ conversation_id: id }))).data, [])
    }
    for (const table of ["customer_text_search", "conversation_text_search", "message_text_search"]) {
      assert.strictEqual(yield* searchRows(table, word), 0, table)
    }
    const listed = (yield* (yield* Events).list(new ListEvents({ per_page: 100 }))).data
    const mentions = (text: unknown) =>
      String(text).includes(word) || String(text).includes(customerId) ||
      conversationIds.some((id) => String(text).includes(id))
    for (const event of listed) {
      if (event.event === "customer.erased") continue
      assert.isFalse(mentions(JSON.stringify(event.data)), `${event.event} ${JSON.stringify(event.data)}`)
    }
    const stored = yield* storedTexts(principal.workspaceId)
    const erasedRecord = stored.events.filter((e) => e["event"] === "customer.erased")
    assert.strictEqual(erasedRecord.length, 1)
    assert.deepStrictEqual(JSON.parse(String(erasedRecord[0]!["data"])), { id: customerId })
    for (const row of stored.events) {
      if (row["event"] !== "customer.erased") assert.isFalse(mentions(row["data"]), String(row["data"]))
    }
    for (const row of stored.payloads) {
      // A delivery that could still be sent carries nothing of theirs; what was already sent stays as it was.
      // The erasure's own record names only the customer's id, as its event does; a fan-out may have delivered it.
      if (row["status"] === "pending" && row["event"] !== "customer.erased") {
        assert.isFalse(mentions(row["data"]), String(row["data"]))
      }
    }
    for (const row of [...stored.answers, ...stored.excerpts]) assert.isFalse(mentions(Object.values(row).join()))
    for (const row of stored.replyJobs) assert.notInclude(conversationIds, String(row["conversation_id"]))
  }).pipe(as(principal))

const RedactedData = Schema.Struct({ redacted: Schema.Literal(true) })

export const erasureSuite = (adapter: Adapter) =>
  describe(`Customer erasure (${adapter.name})`, () => {
    const provide = provideWebhooks(adapter)

    it.effect("D59: erase removes the customer, conversations, messages and search text; redacts their events", () =>
      Effect.gen(function*() {
        yield* drain
        const { principal } = yield* makeWorkspace()
        const queue = yield* DeliveryQueue
        yield* Effect.gen(function*() {
          const customers = yield* Customers
          const conversations = yield* Conversations
          const messages = yield* Messages
          const webhooks = yield* Webhooks
          const webhook = yield* webhooks.create(new CreateWebhook({ url: "https://a.example/in", events: ["*"] }))
          const agent = yield* (yield* Agents).create(new CreateAgent({ name: "Auto", auto_reply: true }))
          const ada = yield* customers.create(new CreateCustomer({ email: "Ada@Example.test", first_name: "Zyxwo" }))
          yield* customers.update(ada.id, { last_name: "Lovelace" })
          const other = yield* customers.create(new CreateCustomer({ email: "other@example.test" }))
          const first = yield* conversations.create(
            new CreateConversation({ customer_id: ada.id, subject: "Zyxwo kettle", assignee_id: agent.id })
          )
          const second = yield* conversations.create(new CreateConversation({ customer_id: ada.id }))
          const kept = yield* conversations.create(new CreateConversation({ customer_id: other.id, subject: "kept" }))
          for (const content of ["Zyxwo one", "two"]) {
            yield* messages.create(first.id, new CreateMessage({ sender_type: "customer", sender_id: ada.id, content }))
          }
          yield* messages.create(second.id, new CreateMessage({ sender_type: "system", content: "Zyxwo three" }))
          yield* messages.create(kept.id, new CreateMessage({ sender_type: "system", content: "stays" }))
          // One delivery of theirs sent, the rest pending; the events after the fan-out not even fanned out.
          yield* fanOutPending
          const now = yield* DateTime.now
          // The others stay leased, as if their attempts were in flight.
          const claimed = yield* queue.claimDue({
            now,
            leaseUntil: DateTime.add(now, { seconds: 15 }),
            claimant: "test",
            limit: 100
          })
          const sent = claimed.find((d) => d.event.event === "customer.created" && d.event.data["id"] === ada.id)
          assert.isTrue(yield* queue.complete(sent!, attemptAt(now, 200), DeliveryOutcome.Delivered(), now))
          yield* conversations.update(second.id, { priority: "high" })
          const eventsBefore = (yield* (yield* Events).list(new ListEvents({ per_page: 100 }))).data
          const theirs = eventsBefore.filter((e) =>
            !JSON.stringify(e.data).includes(other.id) &&
            !JSON.stringify(e.data).includes(kept.id) && !e.event.startsWith("agent.") &&
            e.event !== "webhook.ping"
          )
          assert.isAbove(yield* searchRows("message_text_search", "zyxwo"), 0)
          assert.isAbove((yield* storedTexts(principal.workspaceId)).replyJobs.length, 0, "the agent's jobs")

          const erased = yield* customers.erase(ada.id)
          assert.deepStrictEqual(
            { ...erased },
            { customer_id: ada.id, conversations: 2, messages: 3, events_redacted: theirs.length }
          )

          yield* assertNothingOf(principal, ada.id, [first.id, second.id], "zyxwo")
          const eventsAfter = (yield* (yield* Events).list(new ListEvents({ per_page: 100 }))).data
          for (const before of theirs) {
            const after = eventsAfter.find((e) => e.id === before.id)!
            assert.deepStrictEqual(after.data, { redacted: true })
            assert.isTrue(Schema.is(RedactedData)(after.data))
            assert.strictEqual(after.event, before.event)
            assert.deepStrictEqual(after.occurred_at, before.occurred_at)
            assert.deepStrictEqual(after.actor, before.actor)
          }
          const erasedEvent = eventsAfter.find((e) => e.event === "customer.erased")!
          assert.deepStrictEqual(erasedEvent.data, { id: ada.id })
          // The other customer's events and rows are untouched.
          assert.strictEqual((yield* customers.get(other.id)).id, other.id)
          assert.strictEqual((yield* conversations.get(kept.id)).subject, "kept")
          assert.isTrue(eventsAfter.some((e) => JSON.stringify(e.data).includes(kept.id)))

          // Deliveries: the one sent stays delivered; those of their events still to send are cancelled, and
          // their events not yet fanned out get none.
          yield* fanOutPending
          const deliveries = (yield* webhooks.deliveries(webhook.id, new ListWebhookDeliveries({ per_page: 100 }))).data
          const redactedIds = new Set(theirs.map((e) => e.id))
          const ofTheirs = deliveries.filter((d) => redactedIds.has(d.event_id))
          assert.isTrue(ofTheirs.some((d) => d.id === sent!.id && d.status === "delivered"))
          for (const d of ofTheirs) if (d.id !== sent!.id) assert.strictEqual(d.status, "cancelled")
          assert.isTrue(deliveries.some((d) => d.event === "customer.erased" && d.status === "pending"))

          // The email is free again; the customer stays gone.
          const again = yield* customers.create(new CreateCustomer({ email: "ada@example.test" }))
          assert.notStrictEqual(again.id, ada.id)
          assert.strictEqual(yield* codeOf(customers.erase(ada.id)), "RESOURCE_NOT_FOUND")
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("D59, D58: erase needs customers write before anything else; foreign and unknown customers are 404", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const ada = yield* (yield* Customers).create(new CreateCustomer({ email: "a@x.io" })).pipe(as(principal))
        const reader = yield* makeWorkspace(["customers:read"])
        const denied = yield* Effect.flip((yield* Customers).erase(ada.id).pipe(as(reader.principal)))
        assert.strictEqual(denied.message, "This token lacks the customers:write (or external-api:write) ability.")
        const foreign = yield* makeWorkspace(["customers:write"])
        assert.strictEqual(
          yield* codeOf((yield* Customers).erase(ada.id).pipe(as(foreign.principal))),
          "RESOURCE_NOT_FOUND"
        )
        assert.strictEqual((yield* (yield* Customers).get(ada.id).pipe(as(principal))).id, ada.id)
      }).pipe(provide))

    it.effect("D59: erased while messages are posted to them and their deliveries retried, nothing of theirs stays", () =>
      Effect.gen(function*() {
        yield* drain
        const { principal } = yield* makeWorkspace()
        const queue = yield* DeliveryQueue
        yield* Effect.gen(function*() {
          const customers = yield* Customers
          const conversations = yield* Conversations
          const messages = yield* Messages
          const webhooks = yield* Webhooks
          yield* webhooks.create(new CreateWebhook({ url: "https://a.example/in", events: ["*"] }))
          const ada = yield* customers.create(new CreateCustomer({ email: "ada@example.test", first_name: "Qwzyx" }))
          const ids: Array<ConversationId> = []
          for (let i = 0; i < 3; i++) {
            ids.push(
              (yield* conversations.create(new CreateConversation({ customer_id: ada.id, subject: "Qwzyx" }))).id
            )
          }
          const post = (i: number) =>
            messages.create(
              ids[i % ids.length]!,
              new CreateMessage({ sender_type: "customer", sender_id: ada.id, content: `Qwzyx ${i}` })
            )
          for (let i = 0; i < 6; i++) yield* post(i)

          // Posters: each message is either stored before the erasure or refused as a missing conversation.
          const outcomes = yield* Ref.make<Array<string>>([])
          const poster = (start: number) =>
            Effect.gen(function*() {
              for (let i = start;; i += 2) {
                const outcome = yield* post(i).pipe(
                  Effect.as("created"),
                  Effect.catchTag("NotFound", () => Effect.succeed("gone"))
                )
                yield* Ref.update(outcomes, (all) => [...all, outcome])
                if (outcome === "gone") return
                yield* Effect.yieldNow
              }
            })
          // The dispatcher's side: claim what is due and answer every attempt with a retry due at once.
          const retries = yield* Ref.make(0)
          const retrier = Effect.gen(function*() {
            for (;;) {
              yield* fanOutPending
              const now = yield* DateTime.now
              const claimed: ReadonlyArray<ClaimedDelivery> = yield* queue.claimDue({
                now,
                leaseUntil: DateTime.add(now, { seconds: 15 }),
                claimant: "retrier",
                limit: 20
              })
              for (const delivery of claimed) {
                yield* queue.complete(delivery, attemptAt(now, 503), DeliveryOutcome.Retry({ at: now }), now)
                yield* Ref.update(retries, (n) => n + 1)
              }
              yield* Effect.yieldNow
            }
          })
          const posters = [yield* Effect.forkChild(poster(100)), yield* Effect.forkChild(poster(101))]
          const dispatcher = yield* Effect.forkChild(retrier)
          // Let both sides get going before the erasure.
          while ((yield* Ref.get(retries)) < 3 || (yield* Ref.get(outcomes)).length < 4) yield* Effect.yieldNow

          const erased = yield* customers.erase(ada.id)
          for (const fiber of posters) yield* Fiber.join(fiber)
          yield* Fiber.interrupt(dispatcher)

          const all = yield* Ref.get(outcomes)
          assert.deepStrictEqual([...new Set(all)].sort(), ["created", "gone"])
          const created = all.filter((o) => o === "created").length
          assert.strictEqual(erased.messages, 6 + created, "every message stored before the erasure was erased")
          assert.strictEqual(erased.conversations, 3)
          yield* assertNothingOf(principal, ada.id, ids, "qwzyx")
          // Whatever the dispatcher holds now is no longer its to record.
          const now = yield* DateTime.now
          const left = yield* queue.claimDue({
            now,
            leaseUntil: DateTime.add(now, { seconds: 15 }),
            claimant: "after",
            limit: 100
          })
          const after = left.filter((d) => d.event.event !== "customer.erased")
          assert.deepStrictEqual(after.map((d) => d.event.event), [])
        }).pipe(as(principal))
      }).pipe(provide))
  })
