/**
 * Exactly one reply per customer message across stops and crashes (D53), on a SQLite file reopened by a new engine.
 * Whether the engine's layer runs the reply worker is the engine package's test (Background.test.ts).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  AnswerModel,
  type AnswerModelShape,
  type ConversationId,
  ListMessages,
  MAX_REPLY_ATTEMPTS,
  MessageId,
  Messages,
  REPLY_LEASE,
  ReplyJobs,
  ReplyWorker
} from "@support-engine/core"
import { DateTime, Deferred, Duration, Effect, Exit, Layer, Option, Scope } from "effect"
import { TestClock } from "effect/testing"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StorageLive } from "../src/Storage.js"
import { type Adapter, as, engineLayer } from "./conformance/Harness.js"
import { fixture, REFUNDS } from "./replies/Fixture.js"

const dir = mkdtempSync(join(tmpdir(), "support-engine-reply-crash-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const url = `file:${join(dir, "support.db")}`
const adapter: Adapter = { name: "sqlite", storage: () => StorageLive(url) }

/** Builds an engine on the file in its own scope, so the test can stop it and open another on the same file. */
const open = <ROut>(layer: Layer.Layer<ROut>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(layer, scope)
    return { scope, run: <A, E, R extends ROut>(self: Effect.Effect<A, E, R>) => Effect.provide(self, context) }
  })

const agentReplies = (conversationId: ConversationId) =>
  Effect.flatMap(Messages, (m) => m.list(new ListMessages({ conversation_id: conversationId, per_page: 100 }))).pipe(
    Effect.map((page) => page.data.filter((msg) => msg.sender_type === "agent").map((msg) => msg.content))
  )

describe("AI reply loop across restarts (sqlite file)", () => {
  it.effect("an engine stopped while its model answers gives the job back; the next engine answers it once", () =>
    Effect.gen(function*() {
      const called = yield* Deferred.make<void>()
      const stuck: AnswerModelShape = {
        answer: () => Effect.andThen(Deferred.succeed(called, undefined), Effect.never),
        matchRule: () => Effect.succeed(Option.none())
      }
      const first = yield* open(
        ReplyWorker.layer({ pollInterval: Duration.days(1) }).pipe(
          Layer.provideMerge(engineLayer(adapter).pipe(Layer.provide(Layer.succeed(AnswerModel, stuck))))
        )
      )
      const f = yield* first.run(fixture())
      yield* f.say("How long do refunds take?")
      // The running worker was woken by the message and is inside the model call: stop the engine there.
      yield* Deferred.await(called)
      yield* Scope.close(first.scope, Exit.void)

      const second = yield* open(engineLayer(adapter))
      // Due at once, and the claim given back does not count as an attempt (MAX_REPLY_ATTEMPTS).
      const probe = yield* second.run(
        Effect.flatMap(ReplyJobs, (jobs) =>
          Effect.flatMap(DateTime.now, (now) =>
            Effect.tap(
              jobs.claimNext({ claimant: "probe", now, leaseUntil: DateTime.addDuration(now, REPLY_LEASE) }),
              () => jobs.release("probe", now)
            )))
      )
      assert.strictEqual(Option.getOrNull(Option.map(probe, (job) => job.attempts)), 1)
      const worker = yield* second.run(ReplyWorker)
      yield* worker.drain
      yield* worker.drain
      assert.deepStrictEqual(yield* second.run(agentReplies(f.conversation.id).pipe(as(f.principal))), [REFUNDS])
      yield* Scope.close(second.scope, Exit.void)
    }))

  it.effect("a crashed worker's lease expires, another answers, and the crashed one's late write is refused", () =>
    Effect.gen(function*() {
      const first = yield* open(engineLayer(adapter))
      const f = yield* first.run(fixture())
      yield* f.say("How long do refunds take?")
      // A process claims the job and dies before it writes anything (no release: it crashed).
      const now = yield* DateTime.now
      const crashed = yield* first.run(
        Effect.flatMap(
          ReplyJobs,
          (jobs) =>
            jobs.claimNext({ claimant: "crashed-process", now, leaseUntil: DateTime.addDuration(now, REPLY_LEASE) })
        )
      )
      assert.isTrue(Option.isSome(crashed))
      yield* Scope.close(first.scope, Exit.void)

      const second = yield* open(engineLayer(adapter))
      const worker = yield* second.run(ReplyWorker)
      const replies = second.run(agentReplies(f.conversation.id).pipe(as(f.principal)))
      yield* worker.drain
      assert.deepStrictEqual(yield* replies, [], "leased: nobody answers before the lease ends")
      yield* TestClock.adjust(Duration.sum(REPLY_LEASE, Duration.seconds(1)))
      yield* worker.drain
      assert.deepStrictEqual(yield* replies, [REFUNDS])
      // The crashed worker comes back after its model call: its claim no longer holds, so it writes nothing.
      const late = yield* second.run(
        Effect.flatMap(
          ReplyJobs,
          (jobs) =>
            Effect.flatMap(
              DateTime.now,
              (at) =>
                jobs.complete(Option.getOrThrow(crashed), { _tag: "Replied", messageId: MessageId.make(f.item.id) }, at)
            )
        )
      )
      assert.isFalse(late)
      yield* worker.drain
      assert.deepStrictEqual(yield* replies, [REFUNDS])
      yield* Scope.close(second.scope, Exit.void)
    }))

  it.effect("a job whose workers keep dying is handed off after three claims instead of tried for ever", () =>
    Effect.gen(function*() {
      const engine = yield* open(engineLayer(adapter))
      const f = yield* engine.run(fixture())
      const asked = yield* f.say("How long do refunds take?")
      const jobs = yield* engine.run(ReplyJobs)
      for (let claim = 1; claim <= MAX_REPLY_ATTEMPTS; claim++) {
        const now = yield* DateTime.now
        const claimed = yield* jobs.claimNext({
          claimant: `doomed-${claim}`,
          now,
          leaseUntil: DateTime.addDuration(now, REPLY_LEASE)
        })
        assert.strictEqual(Option.map(claimed, (c) => c.attempts).pipe(Option.getOrNull), claim)
        yield* TestClock.adjust(Duration.sum(REPLY_LEASE, Duration.seconds(1)))
      }
      yield* engine.run(f.answer)
      assert.deepStrictEqual(yield* engine.run(f.jobOf(asked.id)), [{ status: "done", outcome: "model_error" }])
      assert.deepStrictEqual(yield* engine.run(agentReplies(f.conversation.id).pipe(as(f.principal))), [])
      assert.strictEqual((yield* engine.run(f.current)).assignee_id, null)
      yield* Scope.close(engine.scope, Exit.void)
    }))
})
