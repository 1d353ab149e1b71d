import { assert, describe, it } from "@effect/vitest"
import {
  Companies,
  Conversations,
  CreateCompany,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  Customers,
  Events,
  ListCompanies,
  ListConversations,
  ListCustomers,
  ListEvents,
  ListMessages,
  Messages,
  type Page,
  UpdateCustomer,
  ValidationError
} from "@support-engine/core"
import { DateTime, Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import { type Adapter, as, makeWorkspace, provideEngine } from "./Harness.js"

/** Every page of a listing, following `meta.next_cursor` until it is null. */
const walk = <A, E, R>(
  first: Effect.Effect<Page<A>, E, R>,
  next: (cursor: string) => Effect.Effect<Page<A>, E, R>,
  between: Effect.Effect<void, E, R> = Effect.void
) =>
  Effect.gen(function*() {
    const pages: Array<Page<A>> = []
    let page = yield* first
    pages.push(page)
    while (page.meta.next_cursor !== null) {
      yield* between
      page = yield* next(page.meta.next_cursor)
      pages.push(page)
    }
    return pages
  })

/** The field errors of a failure that must be a 422 (D13). */
const fieldErrors = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Effect.flip(self),
    (e) => e instanceof ValidationError ? Effect.succeed(e.errors) : Effect.die(new Error(`not a 422: ${String(e)}`))
  )

/** Cursors and incremental sync on lists (D52): keyset pages, `updated_since`, and the mode checks. */
export const cursorsSuite = (adapter: Adapter) =>
  describe(`Cursors (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("a cursor walk sees every row once, newest first, while rows are inserted and deleted (D52)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const customers = yield* Customers
        yield* Effect.gen(function*() {
          // Pairs share a created_at (the clock moves every second row), so the id tiebreak is exercised.
          const made = []
          for (let i = 0; i < 9; i++) {
            made.push(yield* customers.create(new CreateCustomer({ email: `c${i}@example.test` })))
            if (i % 2 === 1) yield* TestClock.adjust(Duration.millis(1))
          }
          const expected = [...made].sort((a, b) =>
            b.created_at.epochMilliseconds - a.created_at.epochMilliseconds || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0)
          )
          const full = yield* customers.list(new ListCustomers({ per_page: 100 }))
          assert.deepStrictEqual(full.data.map((c) => c.id), expected.map((c) => c.id))

          // Between pages: a new customer (newer than everything, so before the walk's position) is inserted and
          // the oldest not-yet-seen customer is deleted. Without keysets both would shift offsets.
          let n = 0
          const deleted: Array<string> = []
          const between = Effect.gen(function*() {
            yield* customers.create(new CreateCustomer({ email: `new${n++}@example.test` }))
            const victim = expected[expected.length - 1 - deleted.length]!
            deleted.push(victim.id)
            yield* customers.delete(victim.id)
          })
          const pages = yield* walk(
            customers.list(new ListCustomers({ per_page: 2 })),
            (cursor) => customers.list(new ListCustomers({ per_page: 2, cursor })),
            between
          )
          const seen = pages.flatMap((p) => p.data.map((c) => c.id))
          assert.strictEqual(new Set(seen).size, seen.length, "no row twice")
          const survivors = expected.map((c) => c.id).filter((id) => !deleted.includes(id))
          assert.deepStrictEqual(seen.filter((id) => !deleted.includes(id)), survivors, "no surviving row skipped")
          // Page-number answers also carry a cursor; keyset pages carry no totals.
          assert.isNotNull(pages[0]!.meta.next_cursor)
          assert.strictEqual(pages[0]!.meta.total, 9)
          assert.strictEqual(pages[1]!.meta.total, null)
          assert.strictEqual(pages[1]!.meta.current_page, null)
          assert.strictEqual(pages.at(-1)!.meta.next_cursor, null)
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("the last page of page numbers has no next cursor; an exact fit ends without an empty page", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const companies = yield* Companies
        yield* Effect.gen(function*() {
          for (let i = 0; i < 4; i++) yield* companies.create(new CreateCompany({ name: `Co ${i}` }))
          const last = yield* companies.list(new ListCompanies({ page: 2, per_page: 2 }))
          assert.strictEqual(last.data.length, 2)
          assert.strictEqual(last.meta.next_cursor, null)
          const pages = yield* walk(
            companies.list(new ListCompanies({ per_page: 2 })),
            (cursor) => companies.list(new ListCompanies({ per_page: 2, cursor }))
          )
          assert.deepStrictEqual(pages.map((p) => p.data.length), [2, 2])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("updated_since lists oldest first by updated_at, then id; an update moves a row to the end", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const customers = yield* Customers
        yield* Effect.gen(function*() {
          const early = yield* customers.create(new CreateCustomer({ email: "early@example.test" }))
          yield* TestClock.adjust(Duration.seconds(10))
          const since = yield* DateTime.now
          const a = yield* customers.create(new CreateCustomer({ email: "a@example.test" }))
          const b = yield* customers.create(new CreateCustomer({ email: "b@example.test" }))
          yield* TestClock.adjust(Duration.seconds(1))
          const c = yield* customers.create(new CreateCustomer({ email: "c@example.test" }))
          // a and b share updated_at: the id breaks the tie, ascending.
          const [first, second] = a.id < b.id ? [a, b] : [b, a]

          const page1 = yield* customers.list(new ListCustomers({ updated_since: since, per_page: 2 }))
          assert.deepStrictEqual(page1.data.map((x) => x.id), [first.id, second.id])
          assert.strictEqual(page1.meta.total, null)
          // Meanwhile the first row changes: it comes again, after c, with its new state.
          yield* TestClock.adjust(Duration.seconds(1))
          yield* customers.update(first.id, new UpdateCustomer({ first_name: "Changed" }))
          const rest = yield* walk(
            customers.list(new ListCustomers({ updated_since: since, per_page: 2, cursor: page1.meta.next_cursor! })),
            (cursor) => customers.list(new ListCustomers({ per_page: 2, cursor }))
          )
          const later = rest.flatMap((p) => p.data)
          assert.deepStrictEqual(later.map((x) => x.id), [c.id, first.id])
          assert.strictEqual(later[1]!.first_name, "Changed")
          assert.notInclude(later.map((x) => x.id), early.id)
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("page with cursor or updated_since, a foreign cursor and a cursor of another order are 422 (D52)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const companies = yield* Companies
        yield* Effect.gen(function*() {
          for (let i = 0; i < 3; i++) yield* companies.create(new CreateCompany({ name: `Co ${i}` }))
          const cursor = (yield* companies.list(new ListCompanies({ per_page: 1 }))).meta.next_cursor!
          const both = yield* fieldErrors(companies.list(new ListCompanies({ page: 1, cursor })))
          assert.deepStrictEqual(Object.keys(both), ["page"])
          const since = yield* fieldErrors(
            companies.list(new ListCompanies({ page: 2, updated_since: DateTime.makeUnsafe(0) }))
          )
          assert.deepStrictEqual(Object.keys(since), ["page"])
          for (const bad of ["nope", "e30", "eyJvIjoibiIsInQiOiJ4IiwiaSI6IjEifQ"]) {
            const error = yield* fieldErrors(companies.list(new ListCompanies({ cursor: bad })))
            assert.deepStrictEqual(error, { cursor: ["must be a cursor from a previous answer"] })
          }
          const mixed = yield* fieldErrors(
            companies.list(new ListCompanies({ cursor, updated_since: DateTime.makeUnsafe(0) }))
          )
          assert.deepStrictEqual(Object.keys(mixed), ["cursor"])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("conversations, messages (by sent_at) and events walk by cursor and sync by updated_since", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const [customers, conversations, messages, events] = [
          yield* Customers,
          yield* Conversations,
          yield* Messages,
          yield* Events
        ]
        yield* Effect.gen(function*() {
          const start = yield* DateTime.now
          const customer = yield* customers.create(new CreateCustomer({ email: "x@example.test" }))
          const conversation = yield* conversations.create(new CreateConversation({ customer_id: customer.id }))
          const sent = []
          for (let i = 0; i < 5; i++) {
            yield* TestClock.adjust(Duration.millis(1))
            // sent_at runs backwards: the list order (sent_at) and the sync order (created_at) differ.
            sent.push(
              yield* messages.create(
                conversation.id,
                new CreateMessage({
                  sender_type: "customer",
                  sender_id: customer.id,
                  content: `m${i}`,
                  sent_at: DateTime.makeUnsafe(1_000_000 - i * 1000)
                })
              )
            )
          }
          const byList = yield* walk(
            messages.list(new ListMessages({ per_page: 2 })),
            (cursor) => messages.list(new ListMessages({ per_page: 2, cursor }))
          )
          assert.deepStrictEqual(byList.flatMap((p) => p.data.map((m) => m.content)), ["m0", "m1", "m2", "m3", "m4"])
          const bySync = yield* walk(
            messages.list(new ListMessages({ per_page: 2, updated_since: start })),
            (cursor) => messages.list(new ListMessages({ per_page: 2, cursor }))
          )
          assert.deepStrictEqual(bySync.flatMap((p) => p.data.map((m) => m.content)), ["m0", "m1", "m2", "m3", "m4"])

          const convs = yield* walk(
            conversations.list(new ListConversations({ per_page: 1, updated_since: start })),
            (cursor) => conversations.list(new ListConversations({ per_page: 1, cursor }))
          )
          assert.deepStrictEqual(convs.flatMap((p) => p.data.map((c) => c.id)), [conversation.id])

          const all = yield* events.list(new ListEvents({ per_page: 100 }))
          const walked = yield* walk(
            events.list(new ListEvents({ per_page: 3 })),
            (cursor) => events.list(new ListEvents({ per_page: 3, cursor }))
          )
          assert.deepStrictEqual(walked.flatMap((p) => p.data.map((e) => e.id)), all.data.map((e) => e.id))
          const synced = yield* walk(
            events.list(new ListEvents({ per_page: 3, updated_since: start })),
            (cursor) => events.list(new ListEvents({ per_page: 3, cursor }))
          )
          assert.deepStrictEqual(
            synced.flatMap((p) => p.data.map((e) => e.id)),
            [...all.data].reverse().map((e) => e.id)
          )
        }).pipe(as(principal))
      }).pipe(provide))
  })
