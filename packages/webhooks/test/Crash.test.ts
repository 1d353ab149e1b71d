/**
 * Crash safety (D38): a dispatcher in a child process on a SQLite file is killed with SIGKILL mid-delivery. After a
 * restart the delivery is made once its lease (timeout 2 s + margin 1 s) has expired: nothing is lost, and the
 * receiver answers a second time only when the crash came after it had answered.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  CreateWebhook,
  ListWebhookDeliveries,
  type PrincipalShape,
  type WebhookId,
  Webhooks
} from "@support-engine/core"
import { Deferred, Duration, Effect, Queue } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { DnsHostResolver } from "../src/DnsHostResolver.js"
import { answer, as, freshDatabaseUrl, makeWorkspace, record, scriptedTransport, servicesLayer } from "./Harness.js"
import { type Hit, startReceiver } from "./TestReceiver.js"

const here = dirname(fileURLToPath(import.meta.url))
const fixture = join(here, "fixtures", "dispatcher-process.ts")
const LEASE_MILLIS = 3000

/** Starts the dispatcher process on `file`; resolves once it prints `ready`; killed with the scope. */
const startDispatcher = (file: string) =>
  Effect.acquireRelease(
    Effect.callback<ChildProcess, Error>((resume) => {
      const child = spawn(process.execPath, ["--import", "tsx", fixture, file], {
        cwd: join(here, ".."),
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      child.stdout!.on("data", (chunk: Buffer) => {
        output += chunk.toString()
        if (output.includes("ready")) resume(Effect.succeed(child))
      })
      child.stderr!.on("data", (chunk: Buffer) => {
        output += chunk.toString()
      })
      child.on("exit", (code, signal) => {
        if (!output.includes("ready")) {
          resume(Effect.fail(new Error(`dispatcher exited (${code ?? signal}): ${output}`)))
        }
      })
    }).pipe(Effect.timeoutOrElse({
      duration: Duration.seconds(30),
      orElse: () => Effect.fail(new Error("dispatcher not ready"))
    })),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  )

/** Kills the dispatcher process as soon as it is known (from a node callback). */
const crash = (child: Deferred.Deferred<ChildProcess>): void => {
  Effect.runFork(Effect.flatMap(Deferred.await(child), (c) => Effect.sync(() => c.kill("SIGKILL"))))
}

const killed = (child: ChildProcess) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

const next = (hits: Queue.Queue<Hit>) =>
  Queue.take(hits).pipe(
    Effect.timeoutOrElse({
      duration: Duration.seconds(20),
      orElse: () => Effect.fail(new Error("the receiver got nothing"))
    })
  )

const deliveriesOf = (principal: PrincipalShape, id: WebhookId) =>
  Effect.flatMap(Webhooks, (w) => w.deliveries(id, new ListWebhookDeliveries({}))).pipe(
    Effect.map((page) => page.data),
    as(principal),
    Effect.orDie
  )

/** Polls in real time until the condition holds, with a deadline. */
const waitFor = <E, R>(condition: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      if (yield* condition) return
      yield* Effect.sleep(Duration.millis(50))
    }
    return yield* Effect.die(new Error("condition not reached in time"))
  })

/**
 * Kills the dispatcher process and waits until the receiver has read everything it sent: the process is gone and
 * the receiver holds no connection of it. Counting requests after this is final, not a guess after a pause.
 */
const stop = (child: ChildProcess, receiver: { readonly openConnections: Effect.Effect<number> }) =>
  Effect.gen(function*() {
    child.kill("SIGKILL")
    yield* killed(child)
    yield* waitFor(Effect.map(receiver.openConnections, (n) => n === 0))
  })

const eventId = (hit: Hit) => (JSON.parse(hit.body.toString("utf8")) as { data: { id: string } }).data.id

/** The parent's engine on the same file: it records events and reads the log; it runs no dispatcher. */
const parentLayer = (databaseUrl: string) =>
  Effect.map(
    scriptedTransport(() => answer(500)),
    (transport) => servicesLayer(transport.layer, { allowPrivate: true }, DnsHostResolver, databaseUrl)
  )

describe("Crash safety (D38)", () => {
  it.live(
    "SIGKILL before the receiver answered: delivered after the lease expires, once",
    () =>
      Effect.gen(function*() {
        const databaseUrl = freshDatabaseUrl()
        const file = databaseUrl.slice("file:".length)
        const crashed = yield* Deferred.make<ChildProcess>()
        const receiver = yield* startReceiver((n) => {
          if (n === 1) {
            // Mid-delivery: the request has arrived, no answer has been sent. Crash now.
            crash(crashed)
            return "hang"
          }
          return { status: 200 }
        })
        const layer = yield* parentLayer(databaseUrl)
        yield* Effect.gen(function*() {
          const { principal } = yield* makeWorkspace()
          const webhook = yield* Effect.flatMap(
            Webhooks,
            (w) => w.create(new CreateWebhook({ url: receiver.url(), events: ["*"] }))
          ).pipe(as(principal))

          const first = yield* Effect.scoped(Effect.gen(function*() {
            const child = yield* startDispatcher(file)
            yield* Deferred.succeed(crashed, child)
            yield* record("agent.deleted", { id: "crash" }).pipe(as(principal))
            const hit = yield* next(receiver.hits)
            yield* killed(child)
            return hit
          }))
          const [held] = yield* deliveriesOf(principal, webhook.id)
          assert.strictEqual(held!.status, "pending", "not lost")
          assert.strictEqual(held!.attempts, 0, "the attempt died with the process")

          const restarted = yield* startDispatcher(file)
          const second = yield* next(receiver.hits)
          assert.isAtLeast(second.at - first.at, LEASE_MILLIS - 500, "not before the lease expired")
          assert.strictEqual(second.headers["x-service-delivery"], first.headers["x-service-delivery"])
          assert.strictEqual(second.body.toString(), first.body.toString(), "the same delivery")
          yield* waitFor(Effect.map(deliveriesOf(principal, webhook.id), (ds) => ds[0]?.status === "delivered"))
          const [delivered] = yield* deliveriesOf(principal, webhook.id)
          assert.strictEqual(delivered!.attempts, 1)
          yield* stop(restarted, receiver)
          assert.strictEqual(receiver.all.length, 2, "answered once: no duplicate")
        }).pipe(Effect.provide(layer))
      }),
    { timeout: 90_000 }
  )

  it.live(
    "SIGKILL right after the receiver answered: delivered; a duplicate is possible, never a loss",
    () =>
      Effect.gen(function*() {
        const databaseUrl = freshDatabaseUrl()
        const file = databaseUrl.slice("file:".length)
        const crashed = yield* Deferred.make<ChildProcess>()
        const receiver = yield* startReceiver((n) =>
          n === 1 ? { status: 200, onSent: () => crash(crashed) } : { status: 200 }
        )
        const layer = yield* parentLayer(databaseUrl)
        yield* Effect.gen(function*() {
          const { principal } = yield* makeWorkspace()
          const webhook = yield* Effect.flatMap(
            Webhooks,
            (w) => w.create(new CreateWebhook({ url: receiver.url(), events: ["*"] }))
          ).pipe(as(principal))

          yield* Effect.scoped(Effect.gen(function*() {
            const child = yield* startDispatcher(file)
            yield* Deferred.succeed(crashed, child)
            yield* record("agent.deleted", { id: "crash" }).pipe(as(principal))
            yield* next(receiver.hits)
            yield* killed(child)
          }))
          const [afterCrash] = yield* deliveriesOf(principal, webhook.id)
          const restarted = yield* startDispatcher(file)
          yield* waitFor(
            Effect.map(deliveriesOf(principal, webhook.id), (ds) => ds.length === 1 && ds[0]!.status === "delivered")
          )
          // Whatever the dead process held is due again once its lease has ended (it was claimed before the first
          // request arrived). A marker event recorded after that is claimed by a later look at the queue than any
          // repeat would be: once it has arrived, and the dispatcher is stopped, nothing more can come.
          const firstAt = receiver.all[0]!.at
          yield* waitFor(Effect.sync(() => performance.now() > firstAt + LEASE_MILLIS))
          yield* record("agent.deleted", { id: "marker" }).pipe(as(principal))
          yield* waitFor(Effect.sync(() => receiver.all.some((h) => eventId(h) === "marker")))
          yield* stop(restarted, receiver)

          const original = receiver.all.filter((h) => eventId(h) === "crash")
          assert.strictEqual(receiver.all.length, original.length + 1, "the marker once")
          const ids = original.map((h) => h.headers["x-service-delivery"])
          assert.isTrue(new Set(ids).size === 1, "every request is the same delivery (receivers dedupe by id)")
          // Recorded before the kill: one request. Killed before recording: the delivery was still pending, and was
          // sent again after the lease: two requests, both answered.
          assert.strictEqual(original.length, afterCrash!.status === "delivered" ? 1 : 2)
          const delivered = (yield* deliveriesOf(principal, webhook.id)).find((d) => d.id === ids[0])
          assert.strictEqual(delivered!.attempts, 1)
        }).pipe(Effect.provide(layer))
      }),
    { timeout: 90_000 }
  )
})
