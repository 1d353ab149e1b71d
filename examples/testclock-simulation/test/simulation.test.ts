/**
 * A template for a host's own integration tests: support-engine in-process on a temporary SQLite file, its webhook
 * dispatcher delivering to a real receiver on loopback, and time simulated with Effect's `TestClock`. Copy the file,
 * keep the helpers, replace the scenarios.
 *
 * Two kinds of waiting, kept apart:
 * - Simulated time. The engine reads the time from Effect's `Clock` (D4): webhook retries, token expiry, leases,
 *   timestamps. In `it.effect` that clock is the `TestClock`, which starts at 0 (1970-01-01T00:00:00Z) and moves only
 *   when the test moves it (`TestClock.adjust`, `TestClock.setTime`). Hours of retries take no real time.
 * - Real I/O. HTTP requests and database queries take real time, and moving the `TestClock` neither waits for them
 *   nor speeds them up. The test waits for their results on the live clock, with a deadline (`waitFor`,
 *   `nextRequest`), and never moves the test clock to wait for I/O.
 *
 * The one rule that joins them: move the clock only once the fiber that should wake is asleep on it. A fiber that
 * starts its sleep after the clock moved sleeps from the new time and misses the wake-up (`asleepUntil` below).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  CreateApiToken,
  CreateCustomer,
  CreateTrainingData,
  CreateWebhook,
  CreateWorkspace,
  Customers,
  ListWebhookDeliveries,
  Principal,
  type PrincipalShape,
  Tokens,
  Training,
  TrainingProcessor,
  type WebhookId,
  Webhooks,
  Workspaces
} from "@support-engine/core"
import { supportEngineLayer } from "@support-engine/engine"
import { verify } from "@support-engine/webhooks"
import { Clock, Context, DateTime, Duration, Effect, Layer, Queue, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

const dir = mkdtempSync(join(tmpdir(), "support-engine-simulation-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let databases = 0

/**
 * A new SQLite file for each test: every test moves the clock and writes rows, so none may see another's state.
 * (`file::memory:` works too; a file lets you open it with `sqlite3` when a test fails.)
 */
const freshDatabaseUrl = () => `file:${join(dir, `simulation-${++databases}.db`)}`

/**
 * The engine (`supportEngineLayer` of `@support-engine/engine`) on a new database: core's services over migrated
 * storage, webhook subscriptions, the dispatcher on the real HTTP transport and the training worker. Provide it
 * inside the test body: a layer built there runs its background fibers on that test's `TestClock`. Its options and
 * parts say what a host's tests are likely to change:
 * - the host's own `TrainingProcessor` (the default completes every item at once);
 * - `allowPrivate`: the receiver is plain http on 127.0.0.1, which production settings refuse;
 * - the fallback polls of the dispatcher and the workers, which look for work queued by other processes, are a day
 *   instead of a second. Under the TestClock every poll is a wake-up with a database read, and `TestClock.adjust`
 *   runs each wake-up on its way to the target time: jumping hours ahead would mean thousands of them. Every
 *   wake-up is then tied to a due time, so each retry happens exactly when the retry timetable says;
 * - the reply worker, the retention pruner and the previous-secret sweep are off: these scenarios need none of them,
 *   and the sweep wakes every minute.
 */
const engine = (processor: Layer.Layer<TrainingProcessor> = TrainingProcessor.layer) =>
  supportEngineLayer(
    {
      databaseUrl: freshDatabaseUrl(),
      webhooks: { allowPrivate: true, pollInterval: Duration.days(1) },
      replyWorker: false,
      retention: false
    },
    { processor, pollInterval: Duration.days(1), previousSecretSweep: false }
  ).pipe(Layer.orDie)

/** A workspace and the principal of a write token of it, resolved as the HTTP API resolves a bearer token (D9). */
const workspaceAndPrincipal = Effect.gen(function*() {
  const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name: "Simulation" }))
  const tokens = yield* Tokens
  const issued = yield* tokens.create(
    new CreateApiToken({ workspace_id: workspace.id, name: "simulation", abilities: ["external-api:write"] })
  )
  return { workspace, principal: yield* tokens.authenticate(issued.plain) }
}).pipe(Effect.orDie)

/** Runs a service call as `principal` (what the HTTP middleware does per request). */
const as = (principal: PrincipalShape) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provideService(self, Principal, principal)

interface ReceivedRequest {
  /** The raw bytes, exactly as received: signatures are over these, not over re-serialised JSON. */
  readonly body: Buffer
  readonly headers: IncomingHttpHeaders
}

/**
 * A webhook receiver on 127.0.0.1 for the test's scope: plain node:http, as a host's receiver would be. It answers
 * the n-th request with `status(n)` and queues every request for the test to inspect.
 */
const startReceiver = (status: (n: number) => number) =>
  Effect.gen(function*() {
    const received = yield* Queue.unbounded<ReceivedRequest>()
    let count = 0
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        Queue.offerUnsafe(received, { body: Buffer.concat(chunks), headers: request.headers })
        response.writeHead(status(++count)).end()
      })
    })
    const port = yield* Effect.acquireRelease(
      Effect.callback<number>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    return { url: `http://127.0.0.1:${port}/webhooks`, received }
  })

/** The next request the receiver got, waiting in real time: a missing delivery fails the test instead of hanging. */
const nextRequest = (received: Queue.Queue<ReceivedRequest>) =>
  Queue.take(received).pipe(
    Effect.timeoutOrElse({
      duration: Duration.seconds(10),
      orElse: () => Effect.fail(new Error("the receiver got nothing"))
    }),
    TestClock.withLive
  )

/**
 * Reads `read` until `done` holds, pausing on the live clock between reads (at most ~10 s). For state other fibers
 * reach through real I/O: the dispatcher recording an attempt, the training worker finishing an item. `read` itself
 * runs on the test's clock, so the engine still sees simulated time.
 */
const waitFor = <A, E, R>(what: string, read: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 1000; i++) {
      const value = yield* read
      if (done(value)) return value
      yield* TestClock.withLive(Effect.sleep(Duration.millis(10)))
    }
    return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

/** The times at which the sleeps now pending on the test's clock end (`recordingSleeps`). */
class PendingSleeps extends Context.Service<PendingSleeps, { readonly ends: Effect.Effect<ReadonlyArray<number>> }>()(
  "simulation/PendingSleeps"
) {}

/**
 * Runs `self` on the test's `TestClock`, wrapped to record when each pending sleep ends, for `asleepUntil` (Effect 4's
 * `TestClock` does not list its sleeps). It wraps the whole test body: the engine must be built on the wrapped clock
 * for its background fibers to sleep on it.
 */
const recordingSleeps = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, PendingSleeps>> =>
  TestClock.testClockWith((clock) => {
    const ends: Array<number> = []
    const recording: TestClock.TestClock = {
      currentTimeMillisUnsafe: () => clock.currentTimeMillisUnsafe(),
      currentTimeNanosUnsafe: () => clock.currentTimeNanosUnsafe(),
      monotonicTimeNanosUnsafe: () => clock.monotonicTimeNanosUnsafe(),
      currentTimeMillis: clock.currentTimeMillis,
      currentTimeNanos: clock.currentTimeNanos,
      monotonicTimeNanos: clock.monotonicTimeNanos,
      adjust: (duration) => clock.adjust(duration),
      setTime: (timestamp) => clock.setTime(timestamp),
      withLive: (effect) => clock.withLive(effect),
      sleep: (duration) =>
        Effect.acquireUseRelease(
          Effect.sync(() => {
            const end = clock.currentTimeMillisUnsafe() + Duration.toMillis(duration)
            ends.push(end)
            return end
          }),
          () => clock.sleep(duration),
          (end) => Effect.sync(() => ends.splice(ends.indexOf(end), 1))
        )
    }
    return self.pipe(
      Effect.provideService(PendingSleeps, { ends: Effect.sync(() => [...ends]) }),
      Effect.provideService(Clock.Clock, recording)
    )
  })

/**
 * Waits until a fiber sleeps on the `TestClock` until `millis`. The dispatcher computes its sleep from the next due
 * time after a few database reads, and sleeps only once it has sent what was due: asleep until `millis`, it has found
 * nothing due sooner, and moving the clock to `millis` wakes it on time (moved while it is still reading, the clock
 * could leave it asleep past the due time).
 */
const asleepUntil = (millis: number) =>
  Effect.flatMap(
    PendingSleeps,
    ({ ends }) => waitFor(`a fiber asleep until ${millis} ms`, ends, (pending) => pending.includes(millis))
  )

const MINUTE = 60_000

/**
 * A host's own `TrainingProcessor` (crawling, embedding: whatever turns an item into training) that takes two
 * minutes per item. It waits on Effect's clock, so under the TestClock those minutes pass only when the test says.
 */
const twoMinuteProcessor = Layer.succeed(TrainingProcessor, {
  process: () => Effect.as(Effect.sleep(Duration.minutes(2)), { _tag: "Completed", pages: [] } as const)
})

/** The webhook's only delivery, as the API lists it. */
const onlyDelivery = (principal: PrincipalShape, webhookId: WebhookId) =>
  Effect.flatMap(Webhooks, (webhooks) => webhooks.deliveries(webhookId, new ListWebhookDeliveries({}))).pipe(
    Effect.map((page) => page.data[0]),
    as(principal),
    Effect.orDie
  )

describe("support-engine under TestClock", () => {
  it.effect("a change is delivered to the receiver, signed (D37, D39)", () =>
    Effect.gen(function*() {
      // Acquired in the test's scope, outside the engine: the dispatcher stops before the receiver closes.
      const receiver = yield* startReceiver(() => 204)
      yield* Effect.gen(function*() {
        const { principal } = yield* workspaceAndPrincipal
        const webhook = yield* Effect.flatMap(
          Webhooks,
          (webhooks) => webhooks.create(new CreateWebhook({ url: receiver.url, events: ["customer.created"] }))
        ).pipe(as(principal))
        // The secret is returned once, at creation; a host stores it with the receiver.
        const secret = Redacted.value(webhook.secret)

        const customer = yield* Effect.flatMap(
          Customers,
          (customers) => customers.create(new CreateCustomer({ email: "ada@example.com" }))
        ).pipe(as(principal))

        // The event committed with the customer (D34) wakes the dispatcher: no clock movement for a first attempt.
        const request = yield* nextRequest(receiver.received)
        // `verify` checks both signatures and that the timestamp is within 5 minutes of Effect's clock: under the
        // TestClock that is the simulated time the engine signed at.
        const payload = yield* verify(request.body, request.headers, secret)
        assert.strictEqual(payload.event, "customer.created")
        assert.strictEqual(payload.data["id"], customer.id)
        assert.deepStrictEqual(payload.actor, principal.actor)
        assert.strictEqual(request.headers["webhook-timestamp"], "0")

        const delivered = yield* waitFor(
          "the delivery to be recorded",
          onlyDelivery(principal, webhook.id),
          (d) => d?.status === "delivered"
        )
        assert.strictEqual(delivered!.id, payload.id, "the body's id is the delivery id (D37)")

        // The same request replayed six simulated minutes later is refused: the timestamp is too old (D39).
        yield* TestClock.adjust(Duration.minutes(6))
        const replay = yield* Effect.flip(verify(request.body, request.headers, secret))
        assert.strictEqual(replay.reason, "timestamp_out_of_tolerance")
      }).pipe(Effect.provide(engine()))
    }))

  it.effect("a receiver answering 500 is retried on the D38 timetable, then the delivery has failed", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => 500)
      yield* Effect.gen(function*() {
        const { principal } = yield* workspaceAndPrincipal
        const webhook = yield* Effect.flatMap(
          Webhooks,
          (webhooks) => webhooks.create(new CreateWebhook({ url: receiver.url, events: ["*"] }))
        ).pipe(as(principal))
        yield* Effect.flatMap(Customers, (customers) => customers.create(new CreateCustomer({ first_name: "Ada" })))
          .pipe(as(principal))

        // D38: attempt n+1 is due 2^(n-1) minutes after attempt n failed; 10 attempts in all.
        const timetable = [0, 1, 3, 7, 15, 31, 63, 127, 255, 511].map((minutes) => minutes * MINUTE)
        const deliveryIds = new Set<unknown>()
        for (const [i, due] of timetable.entries()) {
          if (i > 0) {
            // The dispatcher records attempt i (real I/O: wait for it), then sleeps until the next one is due.
            const pending = yield* waitFor(
              `attempt ${i} to be recorded`,
              onlyDelivery(principal, webhook.id),
              (d) => d?.attempts === i
            )
            assert.strictEqual(pending!.status, "pending")
            assert.strictEqual(pending!.next_attempt_at?.epochMilliseconds, due, `attempt ${i + 1} due at ${due} ms`)
            yield* asleepUntil(due)
            assert.strictEqual(yield* Queue.size(receiver.received), 0, "nothing is sent before it is due")
            yield* TestClock.setTime(due)
          }
          const request = yield* nextRequest(receiver.received)
          deliveryIds.add(request.headers["webhook-id"])
        }
        assert.strictEqual(deliveryIds.size, 1, "every attempt is the same delivery (D37)")

        const failed = yield* waitFor(
          "the delivery to fail",
          onlyDelivery(principal, webhook.id),
          (d) => d?.status === "failed"
        )
        assert.deepStrictEqual(failed!.attempt_log.map((a) => a.attempted_at.epochMilliseconds), timetable)
        assert.deepStrictEqual(failed!.attempt_log.map((a) => a.response_status), timetable.map(() => 500))
        assert.isNull(failed!.next_attempt_at)
        // One failed delivery leaves the webhook active; five failed deliveries in a row deactivate it (D38).
        const after = yield* Effect.flatMap(Webhooks, (webhooks) => webhooks.get(webhook.id)).pipe(as(principal))
        assert.deepStrictEqual([after.is_active, after.consecutive_failures], [true, 1])
      }).pipe(Effect.provide(engine()), recordingSleeps)
    }))

  it.effect("a token authenticates until its expires_at, then is refused (D9)", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name: "Expiry" }))
      const tokens = yield* Tokens
      const issued = yield* tokens.create(
        new CreateApiToken({
          workspace_id: workspace.id,
          name: "one hour",
          abilities: ["external-api:read"],
          expires_at: DateTime.add(yield* DateTime.now, { hours: 1 })
        })
      )
      const principal = yield* tokens.authenticate(issued.plain)
      assert.strictEqual(principal.workspaceId, workspace.id)

      // Nothing here waits on the clock in the background, so the test can move it at once.
      yield* TestClock.adjust(Duration.minutes(59))
      const stillValid = yield* tokens.authenticate(issued.plain)
      assert.strictEqual(stillValid.workspaceId, workspace.id)
      yield* TestClock.adjust(Duration.minutes(1))
      // Expired is the same 401 as unknown or revoked (D9): handle it by its tag.
      const outcome = yield* tokens.authenticate(issued.plain).pipe(
        Effect.as("accepted"),
        Effect.catchTag("Unauthenticated", (error) => Effect.succeed(`refused: ${error.message}`))
      )
      assert.strictEqual(outcome, "refused: Unauthenticated.")
    }).pipe(Effect.provide(engine())))

  it.effect("the training worker processes a queued item; the processor's work takes simulated time (D31)", () =>
    Effect.gen(function*() {
      const { principal } = yield* workspaceAndPrincipal
      const training = yield* Training
      const item = yield* training.create(
        new CreateTrainingData({ type: "text", title: "Returns", content: "Returns are free within 30 days." })
      ).pipe(as(principal))
      assert.strictEqual(item.status, "queued")
      const current = training.get(item.id).pipe(as(principal))

      // Creating the item signals the worker, which claims it (real I/O) and calls the processor, which sleeps on
      // the TestClock until 2 minutes. Until the clock gets there the item stays "processing".
      yield* asleepUntil(2 * MINUTE)
      assert.strictEqual((yield* current).status, "processing")

      yield* TestClock.adjust(Duration.minutes(2))
      const done = yield* waitFor("the item to complete", current, (i) => i.status === "completed")
      assert.isTrue(done.is_processed)
      assert.strictEqual(done.updated_at.epochMilliseconds, 2 * MINUTE, "finished at the simulated time")
    }).pipe(Effect.provide(engine(twoMinuteProcessor)), recordingSleeps))
})
