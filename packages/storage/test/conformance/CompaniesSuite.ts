import { assert, describe, it } from "@effect/vitest"
import { Companies, CompanyId, CreateCompany, decodeRequest, ListCompanies, UpdateCompany } from "@support-engine/core"
import { Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import { type Adapter, as, makeWorkspace, provideEngine } from "./Harness.js"

/** Companies (D25): CRUD, limits, abilities, workspace scope, pagination (D16-D18). */
export const companiesSuite = (adapter: Adapter) =>
  describe(`Companies (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("creates, reads, updates present fields only, and deletes (D21, D22)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const companies = yield* Companies
        yield* Effect.gen(function*() {
          const created = yield* companies.create(new CreateCompany({ name: "Acme", domain: "acme.test" }))
          assert.strictEqual(created.name, "Acme")
          assert.strictEqual(created.country, null)
          assert.deepStrictEqual(yield* companies.get(created.id), created)

          yield* TestClock.adjust(Duration.seconds(5))
          const updated = yield* companies.update(created.id, new UpdateCompany({ country: "NL", domain: null }))
          assert.strictEqual(updated.name, "Acme")
          assert.strictEqual(updated.country, "NL")
          assert.strictEqual(updated.domain, null)
          assert.isTrue(updated.updated_at.epochMilliseconds > created.updated_at.epochMilliseconds)
          assert.deepStrictEqual(yield* companies.get(created.id), updated)

          yield* companies.delete(created.id)
          const gone = yield* Effect.flip(companies.get(created.id))
          assert.strictEqual(gone._tag, "NotFound")
          assert.strictEqual(gone.code, "RESOURCE_NOT_FOUND")
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("an update that changes nothing keeps updated_at", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const companies = yield* Companies
        const created = yield* companies.create(new CreateCompany({ name: "Acme" })).pipe(as(principal))
        yield* TestClock.adjust(Duration.seconds(5))
        const same = yield* companies.update(created.id, new UpdateCompany({ name: "Acme" })).pipe(as(principal))
        assert.deepStrictEqual(same, created)
      }).pipe(provide))

    it.effect("name is required and bounded at 255 (D33)", () =>
      Effect.gen(function*() {
        const decode = decodeRequest(CreateCompany)
        yield* decode({ name: "x".repeat(255) })
        const tooLong = yield* Effect.flip(decode({ name: "x".repeat(256) }))
        assert.deepStrictEqual(Object.keys(tooLong.errors), ["name"])
        const missing = yield* Effect.flip(decode({}))
        assert.deepStrictEqual(Object.keys(missing.errors), ["name"])
        const typed = yield* Effect.flip(decode({ name: 5 }))
        assert.deepStrictEqual(Object.keys(typed.errors), ["name"])
      }))

    it.effect("read tokens read, only write tokens write (D10)", () =>
      Effect.gen(function*() {
        const writer = yield* makeWorkspace()
        const companies = yield* Companies
        const created = yield* companies.create(new CreateCompany({ name: "Acme" })).pipe(as(writer.principal))
        const reader = { ...writer.principal, abilities: ["external-api:read" as const] }
        yield* companies.get(created.id).pipe(as(reader))
        const denied = yield* Effect.flip(companies.create(new CreateCompany({ name: "B" })).pipe(as(reader)))
        assert.strictEqual(denied._tag, "InsufficientAbility")
        const none = { ...writer.principal, abilities: [] }
        const unread = yield* Effect.flip(companies.get(created.id).pipe(as(none)))
        assert.strictEqual(unread._tag, "InsufficientAbility")
      }).pipe(provide))

    it.effect("another workspace's company reads as not found for every operation (D11)", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const theirs = yield* makeWorkspace()
        const companies = yield* Companies
        const created = yield* companies.create(new CreateCompany({ name: "Acme" })).pipe(as(mine.principal))
        const missing = CompanyId.make("00000000-0000-7000-8000-000000000000")
        for (const id of [created.id, missing]) {
          const errors = yield* Effect.all([
            Effect.flip(companies.get(id)),
            Effect.flip(companies.update(id, new UpdateCompany({ name: "X" }))),
            Effect.flip(companies.delete(id))
          ]).pipe(as(theirs.principal))
          // The same answer every time (its tag, status and message), whether the company exists elsewhere or not.
          const answers = errors.map((e) => ({ _tag: e._tag, status: e.status, message: e.message }))
          for (const answer of answers) {
            assert.deepStrictEqual(answer, { _tag: "NotFound", status: 404, message: answers[0]!.message })
          }
        }
        assert.strictEqual((yield* companies.get(created.id).pipe(as(mine.principal))).name, "Acme")
      }).pipe(provide))

    it.effect("lists newest first with the counter-kept total; page edges (D16-D18)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const companies = yield* Companies
        yield* Effect.gen(function*() {
          const names: Array<string> = []
          for (let i = 0; i < 5; i++) {
            names.push(`c${i}`)
            yield* companies.create(new CreateCompany({ name: `c${i}` }))
            yield* TestClock.adjust(Duration.millis(1))
          }
          const all = yield* companies.list(new ListCompanies({}))
          assert.deepStrictEqual(all.data.map((c) => c.name), [...names].reverse())
          assert.deepStrictEqual({ ...all.meta }, {
            current_page: 1,
            from: 1,
            last_page: 1,
            per_page: 15,
            to: 5,
            total: 5,
            next_cursor: null
          })

          const second = yield* companies.list(new ListCompanies({ page: 2, per_page: 2 }))
          assert.deepStrictEqual(second.data.map((c) => c.name), ["c2", "c1"])
          assert.isString(second.meta.next_cursor)
          assert.deepStrictEqual({ ...second.meta }, {
            current_page: 2,
            from: 3,
            last_page: 3,
            per_page: 2,
            to: 4,
            total: 5,
            next_cursor: second.meta.next_cursor
          })

          const last = yield* companies.list(new ListCompanies({ page: 5, per_page: 1 }))
          assert.deepStrictEqual(last.data.map((c) => c.name), ["c0"])

          const past = yield* companies.list(new ListCompanies({ page: 9, per_page: 100 }))
          assert.deepStrictEqual(past.data, [])
          assert.deepStrictEqual({ ...past.meta }, {
            current_page: 9,
            from: null,
            last_page: 1,
            per_page: 100,
            to: null,
            total: 5,
            next_cursor: null
          })

          yield* companies.delete(all.data[0]!.id)
          assert.strictEqual((yield* companies.list(new ListCompanies({}))).meta.total, 4)
        }).pipe(as(principal))
      }).pipe(provide))
  })
