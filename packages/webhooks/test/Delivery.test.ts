/**
 * Deliveries to a real receiver (node:http on 127.0.0.1) through the real undici transport, with private targets
 * allowed (D41) since the receiver is on loopback. Real time: these tests do not use the TestClock.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  Conversations,
  CreateConversation,
  CreateCustomer,
  CreateWebhook,
  Customers,
  Events,
  formatTimestamp,
  ListEvents,
  ListWebhookDeliveries,
  type PrincipalShape,
  RotateWebhookSecret,
  type WebhookId,
  Webhooks,
  type WebhookSettings
} from "@support-engine/core"
import { Clock, DateTime, Duration, Effect, Fiber, Layer, Queue, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { createHmac } from "node:crypto"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { DnsHostResolver } from "../src/DnsHostResolver.js"
import { verify } from "../src/Receiver.js"
import { WebhookTransport } from "../src/Transport.js"
import { as, makeWorkspace, realTransport, record, scriptedResolver, TRANSPORTS, withDispatcher } from "./Harness.js"
import { type Hit, type Reply, startReceiver } from "./TestReceiver.js"

const next = (hits: Queue.Queue<Hit>, within = Duration.seconds(10)) =>
  Queue.take(hits).pipe(
    Effect.timeoutOrElse({ duration: within, orElse: () => Effect.fail(new Error("the receiver got nothing")) })
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
      yield* Effect.sleep(Duration.millis(25))
    }
    return yield* Effect.die(new Error("condition not reached in time"))
  })

/** A receiver, and the engine with a dispatcher on the real transport pointed at it. */
const stack = (settings: Partial<WebhookSettings>) => {
  const all = { allowPrivate: true, ...settings }
  return withDispatcher(realTransport(all), all)
}

const headerRecord = (hit: Hit) =>
  Object.fromEntries(
    Object.entries(hit.headers).flatMap(([k, v]) => typeof v === "string" ? [[k, v]] : [])
  )

describe("Deliveries to a real receiver", () => {
  it.live("conversation.created: exact body and headers, verified independently and by standardwebhooks", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => ({ status: 200, body: "thanks" }))
      yield* Effect.gen(function*() {
        const { principal, workspace } = yield* makeWorkspace()
        const webhook = yield* Effect.flatMap(
          Webhooks,
          (w) =>
            w.create(
              new CreateWebhook({ url: `${receiver.url("/hooks/in")}?source=test`, events: ["conversation.created"] })
            )
        ).pipe(as(principal))
        const secret = Redacted.value(webhook.secret)
        const customer = yield* Effect.flatMap(Customers, (c) => c.create(new CreateCustomer({ email: "c@x.io" })))
          .pipe(as(principal))
        const conversation = yield* Effect.flatMap(
          Conversations,
          (c) => c.create(new CreateConversation({ customer_id: customer.id, subject: "Where is my order?" }))
        ).pipe(as(principal))

        const hit = yield* next(receiver.hits)
        const raw = hit.body.toString("utf8")
        const [delivery] = yield* waitFor(
          Effect.map(deliveriesOf(principal, webhook.id), (ds) => ds[0]?.status === "delivered")
        ).pipe(Effect.andThen(deliveriesOf(principal, webhook.id)))
        const [event] = (yield* Effect.flatMap(Events, (e) => e.list(new ListEvents({ event: "conversation.created" })))
          .pipe(as(principal))).data

        assert.strictEqual(hit.method, "POST")
        assert.strictEqual(hit.path, "/hooks/in?source=test")
        const body = JSON.parse(raw) as Record<string, unknown>
        assert.deepStrictEqual(Object.keys(body), ["event", "id", "organization_id", "data", "occurred_at", "actor"])
        assert.deepStrictEqual(body, {
          event: "conversation.created",
          id: delivery!.id,
          organization_id: workspace.organization_id,
          data: {
            id: conversation.id,
            title: "Where is my order?",
            status: "open",
            priority: "normal",
            channel: "chat",
            assignee_id: null,
            assignee_type: null,
            customer_id: customer.id,
            created_at: formatTimestamp(conversation.created_at),
            updated_at: formatTimestamp(conversation.updated_at)
          },
          occurred_at: body["occurred_at"],
          actor: { type: "api_token", id: principal.actor.id }
        })
        // The data shape of the specification, exactly: no other field (D35).
        assert.deepStrictEqual(Object.keys(body["data"] as object), [
          "id",
          "title",
          "status",
          "priority",
          "channel",
          "assignee_id",
          "assignee_type",
          "customer_id",
          "created_at",
          "updated_at"
        ])
        assert.match(String(body["occurred_at"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/)

        const timestamp = Number(hit.headers["webhook-timestamp"])
        assert.isTrue(Math.abs(timestamp - Date.now() / 1000) < 30)
        const key = Buffer.from(secret.slice("whsec_".length), "base64")
        assert.deepInclude(hit.headers, {
          "content-type": "application/json",
          "user-agent": "support-engine-webhooks/1",
          "x-service-event": "conversation.created",
          "x-service-delivery": delivery!.id,
          "x-service-event-id": event!.id,
          "x-service-signature": createHmac("sha256", Buffer.from(secret, "utf8")).update(hit.body).digest("hex"),
          "webhook-id": delivery!.id,
          "webhook-signature": `v1,${
            createHmac("sha256", key).update(`${delivery!.id}.${timestamp}.`).update(hit.body).digest("base64")
          }`
        })
        assert.notProperty(hit.headers, "x-service-signature-previous")

        // A receiver using the stock library, and one using our helper, both accept it.
        const verified = new StandardWebhook(secret).verify(raw, headerRecord(hit))
        assert.deepStrictEqual(verified, body)
        const payload = yield* verify(hit.body, hit.headers, secret)
        assert.strictEqual(payload.id, delivery!.id)

        assert.strictEqual(delivery!.attempts, 1)
        assert.strictEqual(delivery!.response_status, 200)
        assert.strictEqual(delivery!.attempt_log[0]!.response_excerpt, "thanks")
      }).pipe(Effect.provide(stack({})))
    }))

  it.live("rotation over the wire: during the grace period either secret verifies; after it only the new", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => ({ status: 204 }))
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const created = yield* webhooks.create(new CreateWebhook({ url: receiver.url(), events: ["*"] })).pipe(
          as(principal)
        )
        const rotated = yield* webhooks.rotateSecret(created.id, new RotateWebhookSecret({ grace_period_seconds: 1 }))
          .pipe(as(principal))
        const [oldSecret, newSecret] = [Redacted.value(created.secret), Redacted.value(rotated.secret)]

        yield* record("agent.deleted", { id: "during" }).pipe(as(principal))
        const during = yield* next(receiver.hits)
        for (const secret of [oldSecret, newSecret]) {
          new StandardWebhook(secret).verify(during.body.toString(), headerRecord(during))
          yield* verify(during.body, during.headers, secret)
        }
        assert.strictEqual(
          during.headers["x-service-signature-previous"],
          createHmac("sha256", oldSecret).update(during.body).digest("hex")
        )

        // Waits for the grace period's end by Effect's clock, the one the claim reads; the next attempt comes after it.
        const graceEnd = DateTime.toEpochMillis(rotated.previous_secret_expires_at!)
        yield* waitFor(Effect.map(Clock.currentTimeMillis, (now) => now > graceEnd))
        yield* record("agent.deleted", { id: "after" }).pipe(as(principal))
        const after = yield* next(receiver.hits)
        new StandardWebhook(newSecret).verify(after.body.toString(), headerRecord(after))
        yield* verify(after.body, after.headers, newSecret)
        assert.throws(() => new StandardWebhook(oldSecret).verify(after.body.toString(), headerRecord(after)))
        const refused = yield* Effect.flip(verify(after.body, after.headers, oldSecret))
        assert.strictEqual(refused.reason, "invalid_signature")
      }).pipe(Effect.provide(stack({})))
    }))

  it.live("a slow receiver hits the timeout; the attempt is logged and retried", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver((n): Reply => n === 1 ? { status: 200, delayMs: 3000 } : { status: 200 })
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhook = yield* Effect.flatMap(
          Webhooks,
          (w) => w.create(new CreateWebhook({ url: receiver.url(), events: ["*"] }))
        ).pipe(as(principal))
        yield* record("agent.deleted", { id: "slow" }).pipe(as(principal))
        const first = yield* next(receiver.hits)
        const second = yield* next(receiver.hits)
        assert.isAtLeast(second.at - first.at, 400, "the timeout, then the 200 ms backoff")
        yield* waitFor(Effect.map(deliveriesOf(principal, webhook.id), (ds) => ds[0]?.status === "delivered"))
        const [delivery] = yield* deliveriesOf(principal, webhook.id)
        const [timedOut, delivered] = delivery!.attempt_log
        assert.isNull(timedOut!.response_status)
        assert.match(timedOut!.error!, /^timeout: /)
        assert.isAtLeast(timedOut!.duration_ms, 300)
        assert.isBelow(timedOut!.duration_ms, 3000, "cut by the timeout, before the answer came")
        assert.strictEqual(delivered!.response_status, 200)
        const timedOutEnd = timedOut!.attempted_at.epochMilliseconds + timedOut!.duration_ms
        assert.isAtLeast(delivered!.attempted_at.epochMilliseconds - timedOutEnd, 200, "retried after the backoff")
        assert.strictEqual(second.headers["x-service-delivery"], first.headers["x-service-delivery"])
      }).pipe(Effect.provide(stack({ timeout: Duration.millis(300), retryBase: Duration.millis(200) })))
    }))

  // The exact timetable is checked under TestClock (Dispatcher.test.ts); here real timers wake the real dispatcher.
  // With an hourly poll, each retry arriving within `next`'s deadline was woken by its due time, whatever the load;
  // only lower bounds are asserted, since a busy machine delays an attempt but never brings it forward.
  it.live("with a 200 ms base the first retries come 200, 400 and 800 ms apart, each when due, not at a poll (D38)", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver((n) => ({ status: n <= 3 ? 500 : 200 }))
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        yield* Effect.flatMap(Webhooks, (w) => w.create(new CreateWebhook({ url: receiver.url(), events: ["*"] })))
          .pipe(as(principal))
        yield* record("agent.deleted", { id: "retry" }).pipe(as(principal))
        const arrivals: Array<number> = []
        for (let i = 0; i < 4; i++) arrivals.push((yield* next(receiver.hits)).at)
        const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]!)
        ;[200, 400, 800].forEach((expected, i) => {
          assert.isAtLeast(gaps[i]!, expected - 5, `gap ${i + 1}: ${gaps.map(Math.round)}`)
        })
      }).pipe(Effect.provide(stack({ retryBase: Duration.millis(200), pollInterval: Duration.hours(1) })))
    }))

  it.live("redirects are not followed: a 3xx is a failed attempt (D38)", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver((_, hit) =>
        hit.path === "/in" ? { status: 302, headers: { location: "/elsewhere" } } : { status: 200 }
      )
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhook = yield* Effect.flatMap(
          Webhooks,
          (w) => w.create(new CreateWebhook({ url: receiver.url(), events: ["*"] }))
        ).pipe(as(principal))
        yield* record("agent.deleted", { id: "moved" }).pipe(as(principal))
        yield* next(receiver.hits)
        yield* waitFor(Effect.map(deliveriesOf(principal, webhook.id), (ds) => ds[0]?.attempts === 1))
        // No wait needed: a followed redirect is part of the attempt, so its request would have arrived, and its
        // answer been recorded, before the attempt was.
        assert.deepStrictEqual(receiver.all.map((h) => h.path), ["/in"])
        const [delivery] = yield* deliveriesOf(principal, webhook.id)
        assert.strictEqual(delivery!.status, "pending")
        assert.strictEqual(delivery!.response_status, 302)
        assert.isNotNull(delivery!.next_attempt_at)
      }).pipe(Effect.provide(stack({})))
    }))

  it.live("the answer's excerpt is bounded; consecutive deliveries reuse the connection (keep-alive)", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => ({ status: 200, body: "x".repeat(10_000) }))
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhook = yield* Effect.flatMap(
          Webhooks,
          (w) => w.create(new CreateWebhook({ url: receiver.url(), events: ["*"] }))
        ).pipe(as(principal))
        yield* record("agent.deleted", { id: "1" }).pipe(as(principal))
        const first = yield* next(receiver.hits)
        yield* waitFor(Effect.map(deliveriesOf(principal, webhook.id), (ds) => ds[0]?.status === "delivered"))
        yield* record("agent.deleted", { id: "2" }).pipe(as(principal))
        const second = yield* next(receiver.hits)
        assert.strictEqual(second.remotePort, first.remotePort, "one connection")
        yield* waitFor(
          Effect.map(deliveriesOf(principal, webhook.id), (ds) => ds.every((d) => d.status === "delivered"))
        )
        const excerpts = (yield* deliveriesOf(principal, webhook.id)).map((d) => d.attempt_log[0]!.response_excerpt)
        assert.deepStrictEqual(excerpts, ["x".repeat(1024), "x".repeat(1024)])
      }).pipe(Effect.provide(stack({ concurrency: 1 })))
    }))
})

/** Each real transport's own tests: the dispatcher's and the stock one keep the same rules. */
describe.each(Object.keys(TRANSPORTS) as Array<keyof typeof TRANSPORTS>)("WebhookTransport.%s", (transport) => {
  /** One attempt through the real transport, on its own. */
  const sendWith = (allowPrivate: boolean, url: string, answers: Record<string, ReadonlyArray<string>> = {}) =>
    Effect.flatMap(
      WebhookTransport,
      (t) => Effect.result(t.send({ url, headers: { "content-type": "application/json" }, body: "{}" }))
    ).pipe(Effect.provide(Layer.fresh(realTransport({ allowPrivate }, scriptedResolver(answers), transport))))

  describe("The connect-time address check (D47)", () => {
    it.live("a name that now resolves to a refused address is not connected to; literals neither", () =>
      Effect.gen(function*() {
        const receiver = yield* startReceiver(() => ({ status: 200 }))
        // "rebind.test" passed the check when the webhook was saved; now it answers 127.0.0.1.
        const rebound = yield* sendWith(false, `http://rebind.test:${receiver.port}/in`, {
          "rebind.test": ["127.0.0.1"]
        })
        assert.isTrue(
          rebound._tag === "Failure" && rebound.failure.reason === "refused_address",
          JSON.stringify(rebound)
        )
        const literal = yield* sendWith(false, receiver.url())
        assert.isTrue(
          literal._tag === "Failure" && literal.failure.reason === "refused_address",
          JSON.stringify(literal)
        )
        const mapped = yield* sendWith(false, `http://[::ffff:127.0.0.1]:${receiver.port}/in`)
        assert.isTrue(mapped._tag === "Failure" && mapped.failure.reason === "refused_address", JSON.stringify(mapped))
        assert.strictEqual(receiver.all.length, 0, "the receiver saw nothing")

        const allowed = yield* sendWith(true, `http://rebind.test:${receiver.port}/in`, {
          "rebind.test": ["127.0.0.1"]
        })
        assert.isTrue(allowed._tag === "Success" && allowed.success.status === 200, JSON.stringify(allowed))
        assert.strictEqual(receiver.all.length, 1)
      }))

    it.live("connection errors are reported, not thrown", () =>
      Effect.gen(function*() {
        const receiver = yield* startReceiver(() => ({ status: 200 }))
        const port = receiver.port
        yield* Effect.void
        const unknown = yield* sendWith(false, `https://nowhere.test:${port}/in`)
        assert.isTrue(unknown._tag === "Failure" && unknown.failure.reason === "connection", JSON.stringify(unknown))
      }))
  })

  describe("One attempt (D38)", () => {
    it.live("a redirect is an answer with its excerpt, never followed (D38)", () =>
      Effect.gen(function*() {
        const receiver = yield* startReceiver(() => ({
          status: 302,
          headers: { location: "/elsewhere" },
          body: "moved"
        }))
        const first = yield* sendWith(true, receiver.url())
        const second = yield* sendWith(true, receiver.url())
        for (const answered of [first, second]) {
          assert.isTrue(answered._tag === "Success" && answered.success.status === 302, JSON.stringify(answered))
          assert.strictEqual(answered._tag === "Success" ? answered.success.excerpt : null, "moved")
        }
        assert.deepStrictEqual(receiver.all.map((h) => h.path), ["/in", "/in"])
      }))

    it.live("an answer of no stated length is streamed and cut past 64 KB; its excerpt is bounded (D38)", () =>
      Effect.gen(function*() {
        const receiver = yield* startReceiver(() => ({
          status: 200,
          headers: { "transfer-encoding": "chunked" },
          body: "y".repeat(200_000)
        }))
        const answered = yield* sendWith(true, receiver.url())
        assert.isTrue(answered._tag === "Success", JSON.stringify(answered))
        assert.strictEqual(answered._tag === "Success" ? answered.success.excerpt : null, "y".repeat(1024))
        assert.strictEqual(answered._tag === "Success" ? answered.success.status : 0, 200)
      }))
  })
})

describe("WebhookTransport.HttpClient's timeout (D38)", () => {
  it.effect("is on Effect's clock: a receiver that never answers times out when the TestClock passes the timeout", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => "hang")
      const transport = yield* Layer.build(
        realTransport({ allowPrivate: true, timeout: Duration.seconds(30) }, DnsHostResolver, "HttpClient")
      )
      const sending = yield* Effect.flatMap(
        WebhookTransport,
        (t) =>
          Effect.result(t.send({ url: receiver.url(), headers: { "content-type": "application/json" }, body: "{}" }))
      ).pipe(Effect.provide(transport), Effect.forkChild)
      // The request reached the receiver, which holds it: only the clock can end the attempt now.
      yield* Queue.take(receiver.hits)
      yield* TestClock.adjust(Duration.seconds(29))
      assert.isUndefined(sending.pollUnsafe(), "still waiting one second before the timeout")
      yield* TestClock.adjust(Duration.seconds(1))
      const result = yield* Fiber.join(sending)
      assert.isTrue(result._tag === "Failure" && result.failure.reason === "timeout", JSON.stringify(result))
      assert.strictEqual(result._tag === "Failure" ? result.failure.message : "", "No answer within 30s.")
    }).pipe(Effect.scoped))
})
