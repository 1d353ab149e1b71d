import { assert, describe, it } from "@effect/vitest"
import {
  CreateCustomer,
  CreateTrainingData,
  CreateWebhook,
  Customers,
  ListWebhookDeliveries,
  Training,
  TrainingProcessor,
  Webhooks
} from "@support-engine/core"
import { verify } from "@support-engine/webhooks"
import { Clock, Duration, Effect, Layer, Option, Redacted } from "effect"
import { as, makeWorkspace } from "../../storage/test/conformance/Harness.js"
import { advanceBy, advanceToNext, createTestEngine, makeTestEngine, RecordingReceiver, settle } from "../src/index.js"

const MINUTE = 60_000
const URL_A = "https://hooks.example.test/a"

describe("makeTestEngine (@effect/vitest)", () => {
  it.effect("a change is delivered in process, signed with the webhook's secret, at simulated time 0 (D37, D39)", () =>
    Effect.gen(function*() {
      const { principal } = yield* makeWorkspace()
      const webhook = yield* Effect.flatMap(Webhooks, (w) => w.create(new CreateWebhook({ url: URL_A, events: ["*"] })))
        .pipe(as(principal), Effect.orDie)
      const customer = yield* Effect.flatMap(Customers, (c) => c.create(new CreateCustomer({ first_name: "Ada" })))
        .pipe(as(principal), Effect.orDie)
      yield* settle
      const received = yield* Effect.flatMap(RecordingReceiver, (r) => r.receivedAt(URL_A))
      assert.strictEqual(received.length, 1)
      assert.strictEqual(received[0]!.at, 0)
      const payload = yield* verify(received[0]!.body, received[0]!.headers, Redacted.value(webhook.secret))
      assert.strictEqual(payload.event, "customer.created")
      assert.strictEqual(payload.data["id"], customer.id)
    }).pipe(Effect.provide(makeTestEngine())))

  it.effect("scripted 500s, a timeout and a slow answer: each attempt at exactly D38's time", () =>
    Effect.gen(function*() {
      const { principal } = yield* makeWorkspace()
      const receiver = yield* RecordingReceiver
      // Attempts 1-2 answer 500, 3 times out (10 s), 4 answers 200 after 3 s.
      yield* receiver.script(URL_A, [500, 500, "timeout", { status: 200, after: Duration.seconds(3) }])
      const webhook = yield* Effect.flatMap(Webhooks, (w) => w.create(new CreateWebhook({ url: URL_A, events: ["*"] })))
        .pipe(as(principal), Effect.orDie)
      yield* Effect.flatMap(Customers, (c) => c.create(new CreateCustomer({ first_name: "Ada" })))
        .pipe(as(principal), Effect.orDie)
      // Each call jumps to the next thing due; a day is the fallback poll, well past the last attempt.
      while ((yield* receiver.received).length < 4 || (yield* Clock.currentTimeMillis) < 3 * MINUTE + 13_000) {
        const next = yield* advanceToNext
        if (Option.isNone(next) || next.value > 10 * MINUTE) break
      }
      const attempts = yield* receiver.receivedAt(URL_A)
      // Attempt 2 is due 1 min after attempt 1 failed; attempt 3 2 min after attempt 2; attempt 4 4 min after attempt
      // 3 failed, which was when its 10 s timeout ran out.
      assert.deepStrictEqual(attempts.map((a) => [a.at, a.answer]), [
        [0, 500],
        [MINUTE, 500],
        [3 * MINUTE, "timeout"],
        [7 * MINUTE + 10_000, 200]
      ])
      const page = yield* Effect.flatMap(Webhooks, (w) => w.deliveries(webhook.id, new ListWebhookDeliveries({})))
        .pipe(as(principal), Effect.orDie)
      assert.strictEqual(page.data[0]!.status, "delivered")
      assert.strictEqual(page.data[0]!.attempts, 4)
    }).pipe(Effect.provide(makeTestEngine())))

  it.effect("410 disables the webhook; nothing more is sent to it (D38)", () =>
    Effect.gen(function*() {
      const { principal } = yield* makeWorkspace()
      const receiver = yield* RecordingReceiver
      yield* receiver.script(URL_A, [410])
      const webhook = yield* Effect.flatMap(Webhooks, (w) => w.create(new CreateWebhook({ url: URL_A, events: ["*"] })))
        .pipe(as(principal), Effect.orDie)
      const create = Effect.flatMap(Customers, (c) => c.create(new CreateCustomer({ first_name: "Ada" })))
        .pipe(as(principal), Effect.orDie)
      yield* create
      yield* settle
      yield* create
      yield* advanceBy(60 * MINUTE)
      assert.strictEqual((yield* receiver.receivedAt(URL_A)).length, 1)
      const after = yield* Effect.flatMap(Webhooks, (w) => w.get(webhook.id)).pipe(as(principal), Effect.orDie)
      assert.isFalse(after.is_active)
    }).pipe(Effect.provide(makeTestEngine())))

  const twoMinutes = Layer.succeed(TrainingProcessor, {
    process: () => Effect.as(Effect.sleep(Duration.minutes(2)), { _tag: "Completed", pages: [] } as const)
  })

  it.effect("the training worker runs on the test clock: processing until the processor's 2 minutes pass", () =>
    Effect.gen(function*() {
      const { principal } = yield* makeWorkspace()
      const training = yield* Training
      const item = yield* training.create(new CreateTrainingData({ type: "text", title: "T", content: "Returns." }))
        .pipe(as(principal), Effect.orDie)
      yield* settle
      assert.strictEqual((yield* training.get(item.id).pipe(as(principal), Effect.orDie)).status, "processing")
      const next = yield* advanceToNext
      assert.deepStrictEqual(next, Option.some(2 * MINUTE))
      const done = yield* training.get(item.id).pipe(as(principal), Effect.orDie)
      assert.strictEqual(done.status, "completed")
      assert.strictEqual(done.updated_at.epochMilliseconds, 2 * MINUTE)
    }).pipe(Effect.provide(makeTestEngine({ processor: twoMinutes }))))
})

describe("createTestEngine (Promises, plain vitest)", () => {
  it("runs the same engine with Promises, and the same seed gives the same ids and bodies", async () => {
    const once = async () => {
      const engine = createTestEngine({ seed: 7 })
      try {
        await engine.script(URL_A, [503], 204)
        const { principal } = await engine.run(makeWorkspace())
        await engine.run(
          Effect.flatMap(Webhooks, (w) => w.create(new CreateWebhook({ url: URL_A, events: ["*"] }))).pipe(
            as(principal),
            Effect.orDie
          )
        )
        await engine.run(
          Effect.flatMap(Customers, (c) => c.create(new CreateCustomer({ first_name: "Ada" }))).pipe(
            as(principal),
            Effect.orDie
          )
        )
        await engine.settle()
        // Wake-ups come one at a time (a claim's lease ends at 15 s, then the retry is due): step until it is sent.
        while ((await engine.received()).length < 2) {
          const next = await engine.advanceToNext()
          assert.isDefined(next)
          assert.isAtMost(next!, MINUTE, "the retry after a 503 is due a minute later (D38)")
        }
        return (await engine.received()).map((r) => [r.at, r.answer, r.body, r.headers["webhook-signature"]])
      } finally {
        await engine.dispose()
      }
    }
    const first = await once()
    assert.deepStrictEqual(first.map(([at, answer]) => [at, answer]), [[0, 503], [MINUTE, 204]])
    const second = await once()
    assert.deepStrictEqual(second, first)
  })
})
