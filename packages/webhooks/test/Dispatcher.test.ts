/**
 * The delivery rules of D38 under `TestClock`, with a scripted transport (no real I/O waits on the test clock).
 */
import { assert, describe, it } from "@effect/vitest"
import { DeliveryQueue, RotateWebhookSecret, Webhooks } from "@support-engine/core"
import { Clock, DateTime, Duration, Effect, Exit, Layer, Queue, Redacted, Scope } from "effect"
import { TestClock } from "effect/testing"
import { verify } from "../src/Receiver.js"
import { TransportError } from "../src/Transport.js"
import {
  answer,
  as,
  asleep,
  asleepUntil,
  attemptsAre,
  clockSettings,
  deliveriesOf,
  dispatcherLayer,
  eventually,
  makeWorkspace,
  next,
  type Received,
  record,
  recordingSleeps,
  scriptedTransport,
  servicesLayer,
  subscribe,
  webhookOf,
  withDispatcher
} from "./Harness.js"

const MINUTE = 60_000

/**
 * Checks that nothing arrives before `millis`, then moves the clock to `millis`. The dispatcher asleep until exactly
 * `millis` with the clock 1 ms before is the proof: it has looked at the queue and found nothing due sooner, and an
 * attempt it made before would already be in `received`.
 */
const nothingBefore = (received: Queue.Queue<Received>, millis: number) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(millis - 1)
    yield* asleepUntil(millis)
    assert.strictEqual(yield* Queue.size(received), 0, `no attempt before ${millis} ms`)
    yield* TestClock.setTime(millis)
  })

/**
 * Waits until the dispatcher has looked at the queue at the clock's current time, or within the poll interval before
 * it: asleep until later than now, a sleep no longer than the poll interval (an hour in `clockSettings`).
 */
const lookedNow = Effect.flatMap(
  Clock.currentTimeMillis,
  (now) => asleep(`the dispatcher asleep past ${now} ms`, (end) => end > now)
)

describe("Dispatcher rules under TestClock (D38)", () => {
  it.effect("the retry timetable: attempts at 0, 1, 3, 7, 15, … 511 minutes, then the delivery has failed", () =>
    Effect.gen(function*() {
      const transport = yield* scriptedTransport(() => answer(500))
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhook = yield* subscribe().pipe(as(principal))
        yield* record("agent.deleted", { id: "a" }).pipe(as(principal))

        const minutes = [0, 1, 3, 7, 15, 31, 63, 127, 255, 511]
        let deliveryId: unknown
        for (const [i, m] of minutes.entries()) {
          if (m > 0) yield* nothingBefore(transport.received, m * MINUTE)
          const got = yield* next(transport.received)
          assert.strictEqual(DateTime.toEpochMillis(got.at), m * MINUTE, `attempt ${i + 1} at ${m} minutes`)
          deliveryId ??= got.body["id"]
          assert.strictEqual(got.body["id"], deliveryId, "the same delivery id on every attempt (D37)")
          yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.attempts === i + 1)
        }
        const [delivery] = yield* deliveriesOf(principal, webhook.id)
        assert.strictEqual(delivery!.status, "failed")
        assert.isNull(delivery!.next_attempt_at)
        assert.deepStrictEqual(delivery!.attempt_log.map((a) => a.response_status), minutes.map(() => 500))
        assert.deepStrictEqual(
          delivery!.attempt_log.map((a) => DateTime.toEpochMillis(a.attempted_at)),
          minutes.map((m) => m * MINUTE)
        )

        yield* TestClock.adjust(Duration.days(2))
        yield* lookedNow
        assert.strictEqual(yield* Queue.size(transport.received), 0, "no 11th attempt")
        const after = yield* webhookOf(principal, webhook.id)
        assert.strictEqual(after.consecutive_failures, 1)
        assert.isTrue(after.is_active)
      }).pipe(Effect.provide(withDispatcher(transport.layer, clockSettings)), recordingSleeps)
    }))

  it.effect("timeouts and connection errors are retried like other failures; the error is logged", () =>
    Effect.gen(function*() {
      const transport = yield* scriptedTransport((n) =>
        n === 1
          ? Effect.fail(new TransportError({ reason: "timeout", message: "No answer within 10s." }))
          : n === 2
          ? Effect.fail(new TransportError({ reason: "connection", message: "ECONNREFUSED" }))
          : answer(204)
      )
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhook = yield* subscribe().pipe(as(principal))
        yield* record("agent.deleted", { id: "a" }).pipe(as(principal))
        yield* next(transport.received)
        yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.attempts === 1)
        yield* nothingBefore(transport.received, 1 * MINUTE)
        yield* next(transport.received)
        yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.attempts === 2)
        yield* nothingBefore(transport.received, 3 * MINUTE)
        yield* next(transport.received)
        yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.status === "delivered")
        const [d] = yield* deliveriesOf(principal, webhook.id)
        assert.deepStrictEqual(d!.attempt_log.map((a) => [a.response_status, a.error]), [
          [null, "timeout: No answer within 10s."],
          [null, "connection: ECONNREFUSED"],
          [204, null]
        ])
        assert.strictEqual(d!.response_status, 204)
        assert.isNull(d!.last_error)
        assert.deepStrictEqual(d!.delivered_at, DateTime.makeUnsafe(3 * MINUTE))
      }).pipe(Effect.provide(withDispatcher(transport.layer, clockSettings)), recordingSleeps)
    }))

  it.effect("410 deactivates at once and cancels pending deliveries; nothing is sent until enable (D38)", () =>
    Effect.gen(function*() {
      const transport = yield* scriptedTransport((n) => n === 1 ? answer(410) : answer(200))
      // One attempt at a time, so the second delivery is still pending when the 410 arrives.
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhook = yield* subscribe().pipe(as(principal))
        yield* record("agent.deleted", { id: "first" }).pipe(as(principal))
        yield* record("agent.deleted", { id: "second" }).pipe(as(principal))
        const got = yield* next(transport.received)
        assert.deepStrictEqual(got.body["data"], { id: "first" })
        yield* attemptsAre(principal, webhook.id, (ds) => ds.some((d) => d.status === "failed"))

        const gone = yield* webhookOf(principal, webhook.id)
        assert.isFalse(gone.is_active)
        assert.strictEqual(gone.deactivation_reason, "gone")
        assert.deepStrictEqual(gone.deactivated_at, DateTime.makeUnsafe(0))
        const statuses = (yield* deliveriesOf(principal, webhook.id)).map((d) => [d.event, d.status, d.response_status])
        assert.deepStrictEqual(statuses.sort(), [["agent.deleted", "cancelled", null], [
          "agent.deleted",
          "failed",
          410
        ]])

        yield* record("agent.deleted", { id: "while inactive" }).pipe(as(principal))
        yield* TestClock.adjust(Duration.days(1))
        // It has looked since the event was recorded, so it has fanned it out too (fan-out comes first).
        yield* lookedNow
        assert.strictEqual(yield* Queue.size(transport.received), 0, "a deactivated webhook receives nothing")
        assert.strictEqual((yield* deliveriesOf(principal, webhook.id)).length, 2, "and gets no deliveries")

        const enabled = yield* Effect.flatMap(Webhooks, (w) => w.enable(webhook.id)).pipe(as(principal))
        assert.isTrue(enabled.is_active)
        assert.isNull(enabled.deactivated_at)
        yield* record("agent.deleted", { id: "after enable" }).pipe(as(principal))
        const resumed = yield* next(transport.received)
        assert.deepStrictEqual(resumed.body["data"], { id: "after enable" })
        yield* attemptsAre(principal, webhook.id, (ds) => ds.some((d) => d.status === "delivered"))
      }).pipe(Effect.provide(withDispatcher(transport.layer, { ...clockSettings, concurrency: 1 })), recordingSleeps)
    }))

  it.effect(
    "5 consecutive failed deliveries deactivate; a success in between resets the count (D38)",
    () =>
      Effect.gen(function*() {
        // Deliveries of events marked "ok" succeed, the others always fail.
        const transport = yield* scriptedTransport((_, request) =>
          answer((JSON.parse(request.body) as { data: { ok?: boolean } }).data.ok === true ? 200 : 500)
        )
        yield* Effect.gen(function*() {
          const { principal } = yield* makeWorkspace()
          const webhook = yield* subscribe().pipe(as(principal))
          const failAll = (count: number, expectedFailures: number) =>
            Effect.gen(function*() {
              const start = DateTime.toEpochMillis(yield* DateTime.now)
              for (let i = 0; i < count; i++) yield* record("agent.deleted", { id: `fail-${i}` }).pipe(as(principal))
              // Every delivery runs through its 10 attempts in parallel (concurrency 16).
              for (const m of [1, 3, 7, 15, 31, 63, 127, 255, 511]) {
                yield* attemptsAre(principal, webhook.id, (ds) =>
                  ds.every((d) =>
                    d.status !== "pending" || d.attempts > 0
                  ))
                yield* TestClock.setTime(start + m * MINUTE)
              }
              yield* eventually(
                Effect.map(webhookOf(principal, webhook.id), (w) => w.consecutive_failures === expectedFailures),
                `${expectedFailures} consecutive failures`
              )
            })

          yield* failAll(4, 4)
          assert.isTrue((yield* webhookOf(principal, webhook.id)).is_active, "4 failures: still active")

          yield* record("agent.deleted", { id: "good", ok: true }).pipe(as(principal))
          yield* eventually(
            Effect.map(webhookOf(principal, webhook.id), (w) => w.consecutive_failures === 0),
            "the success to reset the count"
          )
          yield* failAll(4, 4)
          assert.isTrue((yield* webhookOf(principal, webhook.id)).is_active, "the count restarted after the success")

          yield* failAll(1, 5)
          const deactivated = yield* webhookOf(principal, webhook.id)
          assert.isFalse(deactivated.is_active)
          assert.strictEqual(deactivated.deactivation_reason, "consecutive_failures")
          const failed = (yield* deliveriesOf(principal, webhook.id)).filter((d) => d.status === "failed")
          assert.strictEqual(failed.length, 9)
          assert.isTrue(failed.every((d) => d.attempts === 10))
        }).pipe(Effect.provide(withDispatcher(transport.layer, clockSettings)), recordingSleeps)
      }),
    { timeout: 60_000 }
  )

  it.effect("redeliver queues the same delivery again with a fresh budget of attempts", () =>
    Effect.gen(function*() {
      const transport = yield* scriptedTransport((n) => n <= 11 ? answer(500) : answer(200))
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhook = yield* subscribe().pipe(as(principal))
        yield* record("agent.deleted", { id: "a" }).pipe(as(principal))
        for (const m of [1, 3, 7, 15, 31, 63, 127, 255, 511]) {
          yield* next(transport.received)
          yield* TestClock.setTime(m * MINUTE)
        }
        yield* next(transport.received)
        yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.status === "failed")
        const [failed] = yield* deliveriesOf(principal, webhook.id)

        yield* TestClock.adjust(Duration.hours(1))
        const requeued = yield* Effect.flatMap(Webhooks, (w) => w.redeliver(webhook.id, failed!.id)).pipe(as(principal))
        assert.strictEqual(requeued.status, "pending")
        assert.strictEqual(requeued.id, failed!.id)
        const redelivered = yield* next(transport.received)
        assert.strictEqual(redelivered.body["id"], failed!.id, "same delivery id (D37)")
        const redeliveredAt = (511 + 60) * MINUTE
        assert.strictEqual(DateTime.toEpochMillis(redelivered.at), redeliveredAt, "at once")
        yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.attempts === 11)
        // A new round: the next attempt is 1 minute later again, not "failed after 10".
        yield* nothingBefore(transport.received, redeliveredAt + MINUTE)
        yield* next(transport.received)
        yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.status === "delivered")
        const [delivered] = yield* deliveriesOf(principal, webhook.id)
        assert.strictEqual(delivered!.attempts, 12)
        assert.deepStrictEqual(
          delivered!.attempt_log.map((a) => a.attempt),
          Array.from({ length: 12 }, (_, i) => i + 1)
        )
      }).pipe(Effect.provide(withDispatcher(transport.layer, clockSettings)), recordingSleeps)
    }))

  it.effect("a 429 whose Retry-After is longer than the backoff waits the longer time", () =>
    Effect.gen(function*() {
      const transport = yield* scriptedTransport((n) =>
        n === 1
          ? answer(429, "300") // 5 minutes > 1 minute of backoff
          : n === 2
          ? answer(429, "30") // 30 seconds < 2 minutes of backoff
          : n === 3
          ? answer(429, new Date(30 * MINUTE).toUTCString()) // an HTTP date: 30 minutes after epoch
          : answer(200)
      )
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhook = yield* subscribe().pipe(as(principal))
        yield* record("agent.deleted", { id: "a" }).pipe(as(principal))
        yield* next(transport.received)
        yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.attempts === 1)
        yield* nothingBefore(transport.received, 5 * MINUTE)
        yield* next(transport.received)
        yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.attempts === 2)
        yield* nothingBefore(transport.received, 7 * MINUTE)
        yield* next(transport.received)
        yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.attempts === 3)
        yield* nothingBefore(transport.received, 30 * MINUTE)
        yield* next(transport.received)
        yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.status === "delivered")
      }).pipe(Effect.provide(withDispatcher(transport.layer, clockSettings)), recordingSleeps)
    }))

  it.effect("rotation: both secrets sign during the grace period, only the new one after it (D46)", () =>
    Effect.gen(function*() {
      const transport = yield* scriptedTransport(() => answer(200))
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const created = yield* subscribe().pipe(as(principal))
        const oldSecret = created.secret
        const rotated = yield* Effect.flatMap(
          Webhooks,
          (w) => w.rotateSecret(created.id, new RotateWebhookSecret({ grace_period_seconds: 3600 }))
        ).pipe(as(principal))
        assert.notStrictEqual(rotated.secret, oldSecret)
        assert.deepStrictEqual(rotated.previous_secret_expires_at, DateTime.makeUnsafe(3_600_000))

        const verifyWith = (got: Received, secret: string) =>
          Effect.result(verify(got.request.body, got.request.headers, secret))

        yield* record("agent.deleted", { id: "during" }).pipe(as(principal))
        const during = yield* next(transport.received)
        assert.strictEqual(during.request.headers["webhook-signature"]!.split(" ").length, 2)
        assert.isDefined(during.request.headers["X-Service-Signature-Previous"])
        assert.isTrue((yield* verifyWith(during, Redacted.value(rotated.secret)))._tag === "Success")
        assert.isTrue((yield* verifyWith(during, Redacted.value(oldSecret)))._tag === "Success")

        yield* TestClock.setTime(3_600_000)
        yield* record("agent.deleted", { id: "after" }).pipe(as(principal))
        const after = yield* next(transport.received)
        assert.strictEqual(after.request.headers["webhook-signature"]!.split(" ").length, 1)
        assert.isUndefined(after.request.headers["X-Service-Signature-Previous"])
        assert.isTrue((yield* verifyWith(after, Redacted.value(rotated.secret)))._tag === "Success")
        const refused = yield* verifyWith(after, Redacted.value(oldSecret))
        assert.isTrue(refused._tag === "Failure" && refused.failure.reason === "invalid_signature")
      }).pipe(Effect.provide(withDispatcher(transport.layer, clockSettings)), recordingSleeps)
    }))

  it.effect("an interrupted dispatcher gives its lease back; the next one delivers at once", () =>
    Effect.gen(function*() {
      // The first attempt never gets an answer: the dispatcher is stopped while it waits.
      const transport = yield* scriptedTransport((n) => n === 1 ? Effect.never : answer(200))
      const services = servicesLayer(transport.layer, clockSettings)
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhook = yield* subscribe().pipe(as(principal))
        const scope = yield* Scope.make()
        yield* Layer.buildWithScope(dispatcherLayer, scope)
        yield* record("agent.deleted", { id: "a" }).pipe(as(principal))
        yield* next(transport.received)
        yield* Scope.close(scope, Exit.void)

        const [released] = yield* deliveriesOf(principal, webhook.id)
        assert.strictEqual(released!.status, "pending")
        assert.strictEqual(released!.attempts, 0, "the interrupted attempt is not counted")
        assert.deepStrictEqual(released!.next_attempt_at, DateTime.makeUnsafe(0), "due again at once")

        yield* Layer.buildWithScope(dispatcherLayer, yield* Scope.make())
        const again = yield* next(transport.received)
        assert.strictEqual(DateTime.toEpochMillis(again.at), 0)
        yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.status === "delivered")
      }).pipe(Effect.provide(services))
    }))

  it.effect("a dispatcher that died holding a lease: the delivery is due again when the lease expires", () =>
    Effect.gen(function*() {
      const transport = yield* scriptedTransport(() => answer(200))
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhook = yield* subscribe().pipe(as(principal))
        yield* record("agent.deleted", { id: "a" }).pipe(as(principal))
        // A dispatcher claims it and dies (no release): its lease is the timeout (10 s) plus the margin (5 s).
        const queue = yield* DeliveryQueue
        const now = yield* DateTime.now
        yield* queue.fanOut(10)
        const claimed = yield* queue.claimDue({
          now,
          leaseUntil: DateTime.add(now, { seconds: 15 }),
          claimant: "crashed",
          limit: 10
        })
        assert.strictEqual(claimed.length, 1)

        yield* Layer.buildWithScope(dispatcherLayer, yield* Scope.make())
        yield* nothingBefore(transport.received, 15_000)
        const got = yield* next(transport.received)
        assert.strictEqual(DateTime.toEpochMillis(got.at), 15_000)
        yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.status === "delivered")
      }).pipe(Effect.provide(servicesLayer(transport.layer, clockSettings)), recordingSleeps)
    }))

  it.effect("an attempt that dies of a defect frees its slot; its delivery is tried again when the lease ends", () =>
    Effect.gen(function*() {
      // One slot: a leaked slot would stop every later delivery.
      const transport = yield* scriptedTransport((n) => n === 1 ? Effect.die(new Error("a bug")) : answer(204))
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhook = yield* subscribe().pipe(as(principal))
        yield* record("agent.deleted", { id: "a" }).pipe(as(principal))
        const first = yield* next(transport.received)
        yield* record("agent.deleted", { id: "b" }).pipe(as(principal))
        const second = yield* next(transport.received)
        assert.notStrictEqual(second.body["id"], first.body["id"], "the other delivery went out in the freed slot")
        // The defect is not an attempt: nothing is logged against the receiver, the lease (10 s + 5 s) runs out.
        yield* attemptsAre(principal, webhook.id, (ds) => ds.filter((d) => d.status === "delivered").length === 1)
        yield* nothingBefore(transport.received, 15_000)
        const again = yield* next(transport.received)
        assert.strictEqual(again.body["id"], first.body["id"])
        yield* attemptsAre(
          principal,
          webhook.id,
          (ds) => ds.length === 2 && ds.every((d) => d.status === "delivered" && d.attempts === 1)
        )
      }).pipe(Effect.provide(withDispatcher(transport.layer, { ...clockSettings, concurrency: 1 })), recordingSleeps)
    }))
})
