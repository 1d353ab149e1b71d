/**
 * The webhook operations of D52 against real receivers (node:http on 127.0.0.1) through the real transport and the
 * dispatcher: a ping reaches the pinged webhook alone, and recover sends failed deliveries again under their ids.
 * Real time (no retry waits are involved: one attempt per round); the clock-driven rules are in the conformance suite.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  CreateWebhook,
  Events,
  ListEvents,
  ListWebhookDeliveries,
  type PrincipalShape,
  RecoverWebhook,
  type WebhookId,
  Webhooks,
  type WebhookSettings
} from "@support-engine/core"
import { DateTime, Duration, Effect, Queue, Redacted } from "effect"
import { verify } from "../src/Receiver.js"
import { as, makeWorkspace, realTransport, record, withDispatcher } from "./Harness.js"
import { type Hit, startReceiver } from "./TestReceiver.js"

const next = (hits: Queue.Queue<Hit>) =>
  Queue.take(hits).pipe(
    Effect.timeoutOrElse({
      duration: Duration.seconds(10),
      orElse: () => Effect.fail(new Error("the receiver got nothing"))
    })
  )

const deliveriesOf = (principal: PrincipalShape, id: WebhookId) =>
  Effect.flatMap(Webhooks, (w) => w.deliveries(id, new ListWebhookDeliveries({}))).pipe(
    Effect.map((page) => page.data),
    as(principal),
    Effect.orDie
  )

const waitFor = <E, R>(condition: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      if (yield* condition) return
      yield* Effect.sleep(Duration.millis(25))
    }
    return yield* Effect.die(new Error("condition not reached in time"))
  })

const stack = (settings: Partial<WebhookSettings> = {}) => {
  const all = { allowPrivate: true, ...settings }
  return withDispatcher(realTransport(all), all)
}

describe("Webhook operations with real receivers (D52)", () => {
  it.live("ping: the pinged webhook alone receives a signed webhook.ping; a * subscriber gets nothing", () =>
    Effect.gen(function*() {
      const pinged = yield* startReceiver(() => ({ status: 204 }))
      const bystander = yield* startReceiver(() => ({ status: 204 }))
      yield* Effect.gen(function*() {
        const { principal, workspace } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const target = yield* webhooks.create(new CreateWebhook({ url: pinged.url(), events: ["agent.created"] }))
          .pipe(as(principal))
        const other = yield* webhooks.create(new CreateWebhook({ url: bystander.url(), events: ["*"] }))
          .pipe(as(principal))
        const delivery = yield* webhooks.ping(target.id).pipe(as(principal))

        const hit = yield* next(pinged.hits)
        const payload = yield* verify(hit.body, hit.headers, Redacted.value(target.secret))
        assert.strictEqual(payload.event, "webhook.ping")
        assert.strictEqual(payload.id, delivery.id)
        assert.strictEqual(payload.organization_id, workspace.organization_id)
        assert.deepStrictEqual(payload.data, { webhook_id: target.id })
        assert.strictEqual(hit.headers["x-service-event"], "webhook.ping")
        yield* waitFor(Effect.map(deliveriesOf(principal, target.id), (ds) => ds[0]?.status === "delivered"))
        // The ping wrote the target's delivery alone, and no event a fan-out could later turn into another delivery:
        // nothing can ever reach the bystander.
        assert.deepStrictEqual(yield* deliveriesOf(principal, other.id), [])
        assert.deepStrictEqual(
          (yield* Effect.flatMap(Events, (e) => e.list(new ListEvents({}))).pipe(as(principal))).data,
          []
        )
        assert.strictEqual(bystander.all.length, 0)
      }).pipe(Effect.provide(stack()))
    }))

  it.live("recover: a delivery that failed is sent again with the same id once the receiver is back", () =>
    Effect.gen(function*() {
      let up = false
      const receiver = yield* startReceiver(() => ({ status: up ? 200 : 503 }))
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const since = yield* DateTime.now
        const webhook = yield* webhooks.create(new CreateWebhook({ url: receiver.url(), events: ["*"] }))
          .pipe(as(principal))
        yield* record("agent.created", { id: "a-1" }).pipe(as(principal))
        const first = yield* next(receiver.hits)
        yield* waitFor(Effect.map(deliveriesOf(principal, webhook.id), (ds) => ds[0]?.status === "failed"))

        up = true
        const recovery = yield* webhooks.recover(webhook.id, new RecoverWebhook({ since })).pipe(as(principal))
        assert.strictEqual(recovery.recovered, 1)
        const again = yield* next(receiver.hits)
        const id = (hit: Hit) => (JSON.parse(hit.body.toString("utf8")) as { id: string }).id
        assert.strictEqual(id(again), id(first), "the same delivery id (D37)")
        yield* waitFor(Effect.map(deliveriesOf(principal, webhook.id), (ds) => ds[0]?.status === "delivered"))
        const [delivery] = yield* deliveriesOf(principal, webhook.id)
        assert.deepStrictEqual(delivery!.attempt_log.map((a) => a.response_status), [503, 200])
      }).pipe(Effect.provide(stack({ maxAttempts: 1 })))
    }))

  it.live("a 410 deactivates the webhook; another webhook subscribed to webhook.deactivated is told, signed", () =>
    Effect.gen(function*() {
      const leaving = yield* startReceiver(() => ({ status: 410 }))
      const watching = yield* startReceiver(() => ({ status: 204 }))
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const gone = yield* webhooks.create(new CreateWebhook({ url: leaving.url(), events: ["agent.created"] }))
          .pipe(as(principal))
        const watcher = yield* webhooks.create(
          new CreateWebhook({ url: watching.url(), events: ["webhook.deactivated"] })
        ).pipe(as(principal))
        yield* record("agent.created", { id: "a-1" }).pipe(as(principal))
        yield* next(leaving.hits)
        const hit = yield* next(watching.hits)
        const payload = yield* verify(hit.body, hit.headers, Redacted.value(watcher.secret))
        assert.strictEqual(payload.event, "webhook.deactivated")
        assert.strictEqual(payload.data["webhook_id"], gone.id)
        assert.strictEqual(payload.data["reason"], "gone")
        // Spread: on Effect 4, @effect/vitest compares a Schema class instance with a plain object by `Equal` (unequal).
        assert.deepStrictEqual({ ...payload.actor }, { type: "system", id: null })
        assert.isFalse((yield* webhooks.get(gone.id).pipe(as(principal))).is_active)
      }).pipe(Effect.provide(stack()))
    }))
})
