import { assert, describe, it } from "@effect/vitest"
import {
  Companies,
  CompanyId,
  CreateCompany,
  CreateCustomer,
  Customer,
  CustomerId,
  CustomerRepo,
  Customers,
  decodeRequest,
  encodeData,
  Events,
  ListCustomers,
  ListEvents,
  Transactor,
  UpdateCustomer
} from "@support-engine/core"
import { DateTime, Duration, Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import { type Adapter, as, makeWorkspace, provideEngine } from "./Harness.js"

/** The workspace's events, oldest first, as `[type, data]`. */
export const recordedEvents = Effect.gen(function*() {
  const page = yield* (yield* Events).list(new ListEvents({ per_page: 100 }))
  return page.data.map((e) => ({ type: e.event, data: e.data, actor: e.actor })).reverse()
})

/** Customers (D19, D24, D25, D34, D35). */
export const customersSuite = (adapter: Adapter) =>
  describe(`Customers (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("creates, reads, updates present fields, deletes; events per D34/D35 with the actor (D44)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const customers = yield* Customers
        yield* Effect.gen(function*() {
          const created = yield* customers.create(new CreateCustomer({ email: "Ada@Example.com", first_name: "Ada" }))
          assert.strictEqual(created.email, "Ada@Example.com")
          assert.strictEqual(created.phone, null)
          assert.strictEqual(created.avatar_url, null)
          assert.deepStrictEqual(created.first_seen_at, created.created_at)
          assert.deepStrictEqual(yield* customers.get(created.id), created)

          yield* TestClock.adjust(Duration.seconds(1))
          const updated = yield* customers.update(
            created.id,
            new UpdateCustomer({ last_name: "Lovelace", phone: null })
          )
          assert.strictEqual(updated.last_name, "Lovelace")
          assert.strictEqual(updated.first_name, "Ada")
          assert.isTrue(updated.updated_at.epochMilliseconds > created.updated_at.epochMilliseconds)

          const same = yield* customers.update(created.id, new UpdateCustomer({ last_name: "Lovelace" }))
          assert.deepStrictEqual(same, updated)

          yield* customers.delete(created.id)
          assert.strictEqual((yield* Effect.flip(customers.get(created.id)))._tag, "NotFound")

          const events = yield* recordedEvents
          assert.deepStrictEqual(events.map((e) => e.type), [
            "customer.created",
            "customer.updated",
            "customer.deleted"
          ])
          assert.deepStrictEqual(events[0]!.data, encodeData(Customer, created))
          assert.strictEqual(events[0]!.data["created_at"], "1970-01-01T00:00:00.000+00:00")
          assert.deepStrictEqual(events[1]!.data, encodeData(Customer, updated))
          assert.deepStrictEqual(events[2]!.data, { id: created.id })
          for (const e of events) assert.deepStrictEqual({ ...e.actor }, { ...principal.actor })
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("needs one of email, first_name, phone (D24)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const customers = yield* Customers
        const error = yield* Effect.flip(customers.create(new CreateCustomer({ last_name: "Only" }))).pipe(
          as(principal)
        )
        assert.strictEqual(error._tag, "ValidationError")
        assert.deepStrictEqual(Object.keys(error._tag === "ValidationError" ? error.errors : {}).sort(), [
          "email",
          "first_name",
          "phone"
        ])
        const ok = yield* customers.create(new CreateCustomer({ phone: "+31 20 123" })).pipe(as(principal))
        const cleared = yield* Effect.flip(customers.update(ok.id, new UpdateCustomer({ phone: null }))).pipe(
          as(principal)
        )
        assert.strictEqual(cleared._tag, "ValidationError")
        assert.deepStrictEqual((yield* recordedEvents.pipe(as(principal))).map((e) => e.type), ["customer.created"])
      }).pipe(provide))

    it.effect("every limit at its bound and one past it (spec Limits, D13)", () =>
      Effect.gen(function*() {
        const decode = decodeRequest(CreateCustomer)
        const limits = { first_name: 100, last_name: 100, phone: 50, locale: 10, country: 255 }
        for (const [field, max] of Object.entries(limits)) {
          yield* decode({ [field]: "x".repeat(max) })
          const error = yield* Effect.flip(decode({ [field]: "x".repeat(max + 1) }))
          assert.deepStrictEqual(Object.keys(error.errors), [field])
        }
        const local = "a".repeat(64)
        const domain = `${"d".repeat(255 - local.length - 1 - 5)}.test`
        yield* decode({ email: `${local}@${domain}` })
        const long = yield* Effect.flip(decode({ email: `${local}@d${domain}` }))
        assert.deepStrictEqual(Object.keys(long.errors), ["email"])
        const shape = yield* Effect.flip(decode({ email: "not-an-email" }))
        assert.deepStrictEqual(Object.keys(shape.errors), ["email"])
        const typed = yield* Effect.flip(decode({ first_name: 5, company_id: "nope" }))
        assert.deepStrictEqual(Object.keys(typed.errors).sort(), ["company_id", "first_name"])
      }))

    it.effect("email is unique per workspace, case-insensitively; a refused create writes nothing (D24)", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const theirs = yield* makeWorkspace()
        const customers = yield* Customers
        const ada = yield* customers.create(new CreateCustomer({ email: "ada@example.com" })).pipe(as(mine.principal))
        const dup = yield* Effect.flip(customers.create(new CreateCustomer({ email: "ADA@example.com" }))).pipe(
          as(mine.principal)
        )
        assert.strictEqual(dup._tag, "ValidationError")
        assert.deepStrictEqual(dup._tag === "ValidationError" && dup.errors, {
          email: ["has already been taken"]
        })
        const other = yield* customers.create(new CreateCustomer({ first_name: "Bob" })).pipe(as(mine.principal))
        const taken = yield* Effect.flip(customers.update(other.id, new UpdateCustomer({ email: "Ada@Example.com" })))
          .pipe(as(mine.principal))
        assert.strictEqual(taken._tag, "ValidationError")
        yield* customers.update(ada.id, new UpdateCustomer({ email: "ADA@EXAMPLE.COM" })).pipe(as(mine.principal))
        yield* customers.create(new CreateCustomer({ email: "ada@example.com" })).pipe(as(theirs.principal))
        const listed = yield* customers.list(new ListCustomers({})).pipe(as(mine.principal))
        assert.strictEqual(listed.meta.total, 2)
        const types = (yield* recordedEvents.pipe(as(mine.principal))).map((e) => e.type)
        assert.deepStrictEqual(types, ["customer.created", "customer.created", "customer.updated"])
      }).pipe(provide))

    it.effect("company_id must be a company of the workspace; deleting the company unlinks its customers (D24, D25)", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const theirs = yield* makeWorkspace()
        const customers = yield* Customers
        const companies = yield* Companies
        const foreign = yield* companies.create(new CreateCompany({ name: "Theirs" })).pipe(as(theirs.principal))
        const own = yield* companies.create(new CreateCompany({ name: "Ours" })).pipe(as(mine.principal))
        for (const company_id of [foreign.id, CompanyId.make("00000000-0000-7000-8000-000000000001")]) {
          const error = yield* Effect.flip(customers.create(new CreateCustomer({ first_name: "A", company_id }))).pipe(
            as(mine.principal)
          )
          assert.deepStrictEqual(error._tag === "ValidationError" && Object.keys(error.errors), ["company_id"])
        }
        const linked = yield* customers.create(new CreateCustomer({ first_name: "A", company_id: own.id })).pipe(
          as(mine.principal)
        )
        const loose = yield* customers.create(new CreateCustomer({ first_name: "B" })).pipe(as(mine.principal))
        yield* TestClock.adjust(Duration.seconds(1))
        yield* companies.delete(own.id).pipe(as(mine.principal))
        // Unlinking is a consequence of the company's deletion, not a customer update: same updated_at, no event.
        assert.deepStrictEqual(
          yield* customers.get(linked.id).pipe(as(mine.principal)),
          new Customer({ ...linked, company_id: null })
        )
        assert.deepStrictEqual(yield* customers.get(loose.id).pipe(as(mine.principal)), loose)
        const byCompany = yield* customers.list(new ListCustomers({ company_id: own.id })).pipe(as(mine.principal))
        assert.deepStrictEqual([byCompany.data.length, byCompany.meta.total], [0, 0])
        assert.deepStrictEqual((yield* recordedEvents.pipe(as(mine.principal))).map((e) => e.type), [
          "customer.created",
          "customer.created"
        ])
      }).pipe(provide))

    it.effect("filters by email and company_id with exact totals; newest first; page edges (D16-D19)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const customers = yield* Customers
        const companies = yield* Companies
        yield* Effect.gen(function*() {
          const globex = yield* companies.create(new CreateCompany({ name: "Globex" }))
          const made = []
          for (let i = 0; i < 6; i++) {
            made.push(
              yield* customers.create(
                new CreateCustomer({ email: `c${i}@example.com`, company_id: i % 2 === 0 ? globex.id : null })
              )
            )
            yield* TestClock.adjust(Duration.millis(1))
          }
          const all = yield* customers.list(new ListCustomers({ per_page: 100 }))
          assert.deepStrictEqual(all.data.map((c) => c.email), made.map((c) => c.email).reverse())
          assert.strictEqual(all.meta.total, 6)
          const byCompany = yield* customers.list(new ListCustomers({ company_id: globex.id, per_page: 2 }))
          assert.deepStrictEqual(byCompany.data.map((c) => c.email), ["c4@example.com", "c2@example.com"])
          assert.isString(byCompany.meta.next_cursor)
          assert.deepStrictEqual({ ...byCompany.meta }, {
            current_page: 1,
            from: 1,
            last_page: 2,
            per_page: 2,
            to: 2,
            total: 3,
            next_cursor: byCompany.meta.next_cursor
          })
          const byEmail = yield* customers.list(new ListCustomers({ email: "C3@example.com" }))
          assert.deepStrictEqual(byEmail.data.map((c) => c.id), [made[3]!.id])
          assert.strictEqual(byEmail.meta.total, 1)
          const none = yield* customers.list(new ListCustomers({ email: "nobody@example.com" }))
          assert.deepStrictEqual([none.data.length, none.meta.total, none.meta.from], [0, 0, null])
          const last = yield* customers.list(new ListCustomers({ per_page: 1, page: 6 }))
          assert.deepStrictEqual(last.data.map((c) => c.id), [made[0]!.id])
          const past = yield* customers.list(new ListCustomers({ per_page: 100, page: 2 }))
          assert.deepStrictEqual(past.data, [])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("another workspace's customer is not found for every operation; abilities (D10, D11)", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const theirs = yield* makeWorkspace()
        const customers = yield* Customers
        const ada = yield* customers.create(new CreateCustomer({ first_name: "Ada" })).pipe(as(mine.principal))
        for (const id of [ada.id, CustomerId.make("00000000-0000-7000-8000-000000000002")]) {
          const errors = yield* Effect.all([
            Effect.flip(customers.get(id)),
            Effect.flip(customers.update(id, new UpdateCustomer({ first_name: "X" }))),
            Effect.flip(customers.delete(id))
          ]).pipe(as(theirs.principal))
          for (const error of errors) assert.strictEqual(error._tag, "NotFound")
        }
        const reader = { ...mine.principal, abilities: ["external-api:read" as const] }
        yield* customers.get(ada.id).pipe(as(reader))
        yield* customers.list(new ListCustomers({})).pipe(as(reader))
        for (
          const denied of yield* Effect.all([
            Effect.flip(customers.create(new CreateCustomer({ first_name: "B" }))),
            Effect.flip(customers.update(ada.id, new UpdateCustomer({ first_name: "B" }))),
            Effect.flip(customers.delete(ada.id))
          ]).pipe(as(reader))
        ) {
          assert.strictEqual(denied._tag, "InsufficientAbility")
        }
        assert.strictEqual((yield* customers.get(ada.id).pipe(as(mine.principal))).first_name, "Ada")
      }).pipe(provide))

    it.effect("no ability reads nothing (D10)", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const customers = yield* Customers
        const ada = yield* customers.create(new CreateCustomer({ first_name: "Ada" })).pipe(as(mine.principal))
        const none = { ...mine.principal, abilities: [] }
        const denied = yield* Effect.all([
          Effect.flip(customers.get(ada.id)),
          Effect.flip(customers.list(new ListCustomers({})))
        ]).pipe(as(none))
        for (const error of denied) assert.strictEqual(error._tag, "InsufficientAbility")
      }).pipe(provide))

    it.effect("a refused update changes nothing and records nothing (D22, D24)", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const theirs = yield* makeWorkspace()
        const customers = yield* Customers
        const foreign = yield* (yield* Companies).create(new CreateCompany({ name: "Theirs" })).pipe(
          as(theirs.principal)
        )
        yield* Effect.gen(function*() {
          const ada = yield* customers.create(new CreateCustomer({ first_name: "Ada", email: "ada@example.com" }))
          const bob = yield* customers.create(new CreateCustomer({ first_name: "Bob" }))
          yield* TestClock.adjust(Duration.seconds(1))
          const refused = yield* Effect.all([
            Effect.flip(customers.update(bob.id, new UpdateCustomer({ last_name: "B", company_id: foreign.id }))),
            Effect.flip(customers.update(bob.id, new UpdateCustomer({ last_name: "B", email: "ADA@example.com" })))
          ])
          assert.deepStrictEqual(
            refused.map((e) => e._tag === "ValidationError" && Object.keys(e.errors)),
            [["company_id"], ["email"]]
          )
          assert.deepStrictEqual(yield* customers.get(bob.id), bob)
          assert.deepStrictEqual(yield* customers.get(ada.id), ada)
          assert.deepStrictEqual((yield* recordedEvents).map((e) => e.type), ["customer.created", "customer.created"])
        }).pipe(as(mine.principal))
      }).pipe(provide))

    it.effect("the unique index backs the email check: concurrent duplicates give one customer, one 422 (D24)", () =>
      Effect.gen(function*() {
        const { principal, workspace } = yield* makeWorkspace()
        const customers = yield* Customers
        yield* Effect.gen(function*() {
          const results = yield* Effect.all(
            ["race@example.com", "RACE@example.com"].map((email) =>
              Effect.result(customers.create(new CreateCustomer({ email })))
            ),
            { concurrency: "unbounded" }
          )
          const failures = results.flatMap((r) => (r._tag === "Failure" ? [r.failure] : []))
          assert.strictEqual(results.filter((r) => r._tag === "Success").length, 1)
          assert.deepStrictEqual(failures.map((e) => e._tag === "ValidationError" && e.errors), [{
            email: ["has already been taken"]
          }])
          assert.strictEqual((yield* customers.list(new ListCustomers({}))).meta.total, 1)
          assert.deepStrictEqual((yield* recordedEvents).map((e) => e.type), ["customer.created"])
        }).pipe(as(principal))

        // Straight to the port, past the service's check: the index refuses with UniqueViolation naming the key, which
        // the service turns into the same 422 as its check (Customers.ts, backstops).
        const repo = yield* CustomerRepo
        const existing = yield* customers.list(new ListCustomers({})).pipe(as(principal))
        const copy = new Customer({
          ...existing.data[0]!,
          id: CustomerId.make("00000000-0000-7000-8000-000000000003"),
          email: "Race@Example.com"
        })
        const other = yield* customers.create(new CreateCustomer({ first_name: "Other" })).pipe(as(principal))
        const backstops = yield* Effect.all([
          Effect.flip(repo.insert(workspace.id, copy)),
          Effect.flip(repo.update(workspace.id, new Customer({ ...other, email: "RACE@EXAMPLE.COM" })))
        ])
        for (const backstop of backstops) {
          assert.deepStrictEqual(backstop._tag === "UniqueViolation" && backstop.key, "customers.email")
        }
      }).pipe(provide))

    it.effect("the foreign key backs the company check: a company gone by write time is a ForeignKeyViolation (D24, D43)", () =>
      Effect.gen(function*() {
        const { principal, workspace } = yield* makeWorkspace()
        const customers = yield* Customers
        const repo = yield* CustomerRepo
        const ada = yield* customers.create(new CreateCustomer({ first_name: "Ada" })).pipe(as(principal))
        // As if the company was deleted between the service's check and the write.
        const vanished = CompanyId.make("00000000-0000-7000-8000-0000000000ee")
        const errors = yield* Effect.all([
          Effect.flip(repo.insert(
            workspace.id,
            new Customer({
              ...ada,
              id: CustomerId.make("00000000-0000-7000-8000-0000000000ef"),
              company_id: vanished
            })
          )),
          Effect.flip(repo.update(workspace.id, new Customer({ ...ada, company_id: vanished })))
        ])
        for (const error of errors) {
          assert.deepStrictEqual(error._tag === "ForeignKeyViolation" && error.key, "customers.company_id")
        }
        assert.deepStrictEqual(yield* customers.get(ada.id).pipe(as(principal)), ada)
      }).pipe(provide))

    it.effect("a failure after the write, in the same transaction, leaves no row, no count and no event", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const customers = yield* Customers
        const tx = yield* Transactor
        yield* Effect.gen(function*() {
          const failed = yield* Effect.flip(tx.withTransaction(
            Effect.andThen(customers.create(new CreateCustomer({ email: "gone@example.com" })), Effect.fail("later"))
          ))
          assert.strictEqual(failed, "later")
          const listed = yield* customers.list(new ListCustomers({}))
          assert.deepStrictEqual([listed.data.length, listed.meta.total], [0, 0])
          assert.deepStrictEqual(yield* recordedEvents, [])
          // The email is free again.
          yield* customers.create(new CreateCustomer({ email: "gone@example.com" }))
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("markSeen moves last_seen_at only, within the workspace, and records nothing", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const theirs = yield* makeWorkspace()
        const customers = yield* Customers
        const repo = yield* CustomerRepo
        const ada = yield* customers.create(new CreateCustomer({ first_name: "Ada" })).pipe(as(mine.principal))
        yield* TestClock.adjust(Duration.minutes(5))
        const at = yield* DateTime.now
        yield* repo.markSeen(mine.workspace.id, ada.id, at)
        yield* repo.markSeen(theirs.workspace.id, ada.id, DateTime.add(at, { hours: 1 }))
        const seen = yield* customers.get(ada.id).pipe(as(mine.principal))
        assert.deepStrictEqual(seen, new Customer({ ...ada, last_seen_at: at }))
        assert.strictEqual(seen.first_seen_at.epochMilliseconds, 0)
        assert.deepStrictEqual(yield* repo.findById(mine.workspace.id, ada.id), Option.some(seen))
        assert.isTrue(Option.isNone(yield* repo.findById(theirs.workspace.id, ada.id)))
        assert.deepStrictEqual((yield* recordedEvents.pipe(as(mine.principal))).map((e) => e.type), [
          "customer.created"
        ])
      }).pipe(provide))
  })
