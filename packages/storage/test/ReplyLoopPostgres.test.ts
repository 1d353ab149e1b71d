/** The AI reply loop (D53) on PostgreSQL: the same suite, and concurrent claimers never share a job (D43). */
import { assert, describe, it } from "@effect/vitest"
import { REPLY_LEASE, ReplyJobs } from "@support-engine/core"
import { DateTime, Effect, Option } from "effect"
import { adminUrl, freshDatabase } from "./PgDatabase.js"
import { fixture } from "./replies/Fixture.js"
import { onEngine, replySuite } from "./replies/ReplySuite.js"

describe.skipIf(adminUrl === undefined)("AI reply loop on PostgreSQL", () => {
  const adapter = freshDatabase()

  replySuite(adapter)

  describe("reply jobs on PostgreSQL", () => {
    it.effect("claimers racing for jobs each get different ones, one job each at most (SKIP LOCKED, D43)", () =>
      Effect.gen(function*() {
        const conversations = yield* Effect.forEach([1, 2, 3], () => fixture())
        yield* Effect.forEach(conversations, (f) => f.say("How long do refunds take?"))
        const jobs = yield* ReplyJobs
        const now = yield* DateTime.now
        const claims = yield* Effect.forEach(
          ["a", "b", "c", "d", "e"],
          (claimant) => jobs.claimNext({ claimant, now, leaseUntil: DateTime.addDuration(now, REPLY_LEASE) }),
          { concurrency: "unbounded" }
        )
        const claimed = claims.flatMap(Option.toArray)
        assert.strictEqual(claimed.length, 3)
        assert.strictEqual(new Set(claimed.map((c) => c.id)).size, 3)
        assert.deepStrictEqual(
          new Set(claimed.map((c) => c.conversationId)),
          new Set(conversations.map((f) => f.conversation.id))
        )
      }).pipe(onEngine(adapter)))
  })
})
