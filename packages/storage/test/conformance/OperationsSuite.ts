/**
 * The storage side of operations (D57): the readiness check (the database answers and is migrated to this code's
 * newest migration) and the webhook backlog read for the metrics.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  CreateWebhook,
  DeliveryBacklog,
  DeliveryOutcome,
  DeliveryQueue,
  Events,
  Readiness,
  Transactor,
  Webhooks
} from "@support-engine/core"
import { DateTime, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { latestMigration } from "../../src/shared/SqlReadiness.js"
import { type Adapter, as, makeWorkspace, provideEngine } from "./Harness.js"
import { attemptAt, claimNow, drain, provideWebhooks } from "./WebhookOpsSuite.js"

class RolledBack {
  readonly _tag = "RolledBack"
}

export const operationsSuite = (adapter: Adapter) =>
  describe(`Operations (${adapter.name})`, () => {
    it.effect("ready on a migrated database; false, not a failure, when its newest migration is missing", () =>
      Effect.gen(function*() {
        const readiness = yield* Readiness
        const sql = yield* SqlClient.SqlClient
        assert.isTrue(yield* readiness.check)
        let during: boolean | undefined
        // Inside a transaction rolled back after: the check sees a database only an older release migrated.
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`DELETE FROM support_engine_migrations WHERE migration_id = ${latestMigration}`
          during = yield* readiness.check
          return yield* Effect.fail(new RolledBack())
        })).pipe(Effect.catchTag("RolledBack", () => Effect.void))
        assert.strictEqual(during, false)
        assert.isTrue(yield* readiness.check)
      }).pipe(provideEngine(adapter)))

    it.effect("the backlog counts pending deliveries and knows the oldest; a delivered one leaves it", () =>
      Effect.gen(function*() {
        yield* drain
        const { principal } = yield* makeWorkspace()
        const backlog = yield* DeliveryBacklog
        const queue = yield* DeliveryQueue
        const before = yield* backlog.read
        const start = yield* DateTime.now
        yield* Effect.gen(function*() {
          yield* (yield* Webhooks).create(new CreateWebhook({ url: "https://a.example/in", events: ["*"] }))
          yield* (yield* Transactor).withTransaction((yield* Events).record("agent.created", { id: "a" }))
        }).pipe(as(principal))
        const [claimed] = yield* claimNow
        assert.isDefined(claimed)
        const during = yield* backlog.read
        assert.strictEqual(during.pending, before.pending + 1)
        assert.isTrue(Option.isSome(during.oldest))
        assert.isTrue(
          DateTime.isLessThanOrEqualTo(Option.getOrThrow(during.oldest), DateTime.add(start, { seconds: 1 }))
        )

        const now = yield* DateTime.now
        assert.isTrue(yield* queue.complete(claimed!, attemptAt(now, 200), DeliveryOutcome.Delivered(), now))
        assert.strictEqual((yield* backlog.read).pending, before.pending)
      }).pipe(provideWebhooks(adapter)))
  })
