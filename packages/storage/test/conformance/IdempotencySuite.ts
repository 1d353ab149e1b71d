import { assert, describe, it } from "@effect/vitest"
import {
  CreateCustomer,
  Customers,
  Idempotency,
  type IdempotentOutcome,
  ListCustomers,
  requestFingerprint
} from "@support-engine/core"
import { Deferred, Duration, Effect, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import { type Adapter, as, makeWorkspace, provideEngine } from "./Harness.js"

const recordJson = (value: unknown): Option.Option<IdempotentOutcome> =>
  Option.some({ status: 201, body: JSON.stringify(value), headers: {} })

/** Idempotency keys (D52) in core, on each database: one write per key, replays, reuse, in flight, expiry. */
export const idempotencySuite = (adapter: Adapter) =>
  describe(`Idempotency (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("the first call runs and is recorded with its write; a retry replays it without writing again", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const customers = yield* Customers
        const idempotency = yield* Idempotency
        yield* Effect.gen(function*() {
          const body = { email: "once@example.test" }
          const fingerprint = requestFingerprint("POST", "/v1/customers", body)
          const create = Effect.map(customers.create(new CreateCustomer(body)), (c) => ({ id: c.id }))
          const first = yield* idempotency.run(principal.workspaceId, "key-1", fingerprint, create, recordJson)
          assert.strictEqual(first._tag, "Fresh")
          const again = yield* idempotency.run(principal.workspaceId, "key-1", fingerprint, create, recordJson)
          assert.strictEqual(again._tag, "Replayed")
          if (first._tag === "Fresh" && again._tag === "Replayed") {
            assert.deepStrictEqual(JSON.parse(again.outcome.body), first.value)
            assert.strictEqual(again.outcome.status, 201)
          }
          assert.strictEqual((yield* customers.list(new ListCustomers({}))).meta.total, 1)

          // Another request under the same key: 422 IDEMPOTENCY_KEY_REUSED, nothing written.
          const other = requestFingerprint("POST", "/v1/customers", { email: "other@example.test" })
          const reused = yield* Effect.flip(idempotency.run(principal.workspaceId, "key-1", other, create, recordJson))
          assert.strictEqual(reused._tag, "IdempotencyKeyReused")
          assert.strictEqual(reused.status, 422)
          assert.strictEqual(reused.code, "IDEMPOTENCY_KEY_REUSED")

          // Keys are per workspace: another workspace's same key is its own.
          const otherWorkspace = yield* makeWorkspace()
          const elsewhere = yield* idempotency.run(
            otherWorkspace.principal.workspaceId,
            "key-1",
            fingerprint,
            Effect.succeed({ id: "elsewhere" }),
            recordJson
          )
          assert.strictEqual(elsewhere._tag, "Fresh")

          // Kept 24 hours: after that the key is free again, even for another request.
          yield* TestClock.adjust(Duration.hours(24))
          const later = yield* idempotency.run(principal.workspaceId, "key-1", other, Effect.succeed(1), recordJson)
          assert.strictEqual(later._tag, "Fresh")
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("a failed first call records nothing and rolls its writes back; its retry runs again", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const customers = yield* Customers
        const idempotency = yield* Idempotency
        yield* Effect.gen(function*() {
          const fingerprint = requestFingerprint("POST", "/v1/customers", {})
          const failing = Effect.as(customers.create(new CreateCustomer({ email: "rolled@example.test" })), 422)
          const first = yield* idempotency.run(principal.workspaceId, "k", fingerprint, failing, () => Option.none())
          assert.strictEqual(first._tag, "Fresh")
          assert.strictEqual((yield* customers.list(new ListCustomers({}))).meta.total, 0, "rolled back")
          const typed = yield* Effect.flip(
            idempotency.run(principal.workspaceId, "k", fingerprint, Effect.fail("boom" as const), recordJson)
          )
          assert.strictEqual(typed, "boom")
          const retry = yield* idempotency.run(principal.workspaceId, "k", fingerprint, Effect.succeed(7), recordJson)
          assert.strictEqual(retry._tag, "Fresh")
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("a retry while the first call runs is 409 IDEMPOTENCY_KEY_IN_USE, at once (no waiting)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const idempotency = yield* Idempotency
        const started = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const slow = Effect.andThen(Deferred.succeed(started, undefined), Deferred.await(release)).pipe(Effect.as(1))
        const fingerprint = requestFingerprint("POST", "/v1/companies", { name: "x" })
        const first = yield* Effect.forkChild(
          idempotency.run(principal.workspaceId, "busy", fingerprint, slow, recordJson)
        )
        yield* Deferred.await(started)
        const second = yield* Effect.flip(
          idempotency.run(principal.workspaceId, "busy", fingerprint, Effect.succeed(2), recordJson)
        )
        assert.strictEqual(second._tag, "IdempotencyKeyInUse")
        assert.strictEqual(second.status, 409)
        yield* Deferred.succeed(release, undefined)
        assert.strictEqual((yield* Fiber.join(first))._tag, "Fresh")
        const third = yield* idempotency.run(principal.workspaceId, "busy", fingerprint, Effect.succeed(3), recordJson)
        assert.strictEqual(third._tag, "Replayed")
      }).pipe(provide))

    it.effect("a key is 1 to 255 characters (D52)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const idempotency = yield* Idempotency
        yield* idempotency.run(principal.workspaceId, "k".repeat(255), "f", Effect.succeed(1), recordJson)
        for (const key of ["", "k".repeat(256)]) {
          const error = yield* Effect.flip(
            idempotency.run(principal.workspaceId, key, "f", Effect.succeed(1), recordJson)
          )
          assert.strictEqual(error._tag, "ValidationError")
        }
      }).pipe(provide))
  })
