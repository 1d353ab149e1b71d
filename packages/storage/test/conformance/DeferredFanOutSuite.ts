/**
 * Issue 16 item 2 (D37, D38, D43, D52): the fan-out out of the writing transaction. A write leaves its event and one
 * marker; the dispatcher's fan-out step makes the deliveries of many events in one transaction, under the
 * subscriptions each event committed with: every change to them fans the workspace's waiting events out first.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  CreateWebhook,
  DeliveryOutcome,
  DeliveryQueue,
  Events,
  type EventType,
  HostResolver,
  Transactor,
  type Webhook,
  WebhookConfig,
  type WebhookEventType,
  WebhookRepo,
  Webhooks,
  type WorkspaceId
} from "@support-engine/core"
import { DateTime, Deferred, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { type Adapter, as, fanOutPending, makeWorkspace, provideEngine, type TestEngine } from "./Harness.js"
import { addWebhook, drainQueue } from "./WebhooksSuite.js"

/** Any host name is a public address: the suite tests the fan-out, not the URL policy. */
const services = Webhooks.layerWithoutDependencies.pipe(
  Layer.provide(Layer.merge(
    WebhookConfig.layer(),
    Layer.succeed(HostResolver, { resolve: () => Effect.succeed([{ address: "93.184.216.34", family: 4 as const }]) })
  ))
)

const record = (type: EventType, id: string) =>
  Effect.flatMap(Transactor, (tx) => tx.withTransaction(Effect.flatMap(Events, (e) => e.record(type, { id }))))

/** The events (by their data's id) a webhook has deliveries of, sorted. */
const deliveredTo = (workspaceId: WorkspaceId, webhook: Pick<Webhook, "id">) =>
  Effect.flatMap(WebhookRepo, (repo) => repo.listDeliveries(workspaceId, webhook.id, {}, { limit: 1000, offset: 0 }))
    .pipe(Effect.map(({ items }) => items))

const create = (events: ReadonlyArray<WebhookEventType>) =>
  Effect.flatMap(Webhooks, (w) => w.create(new CreateWebhook({ url: "https://hooks.example.com/in", events })))

export const deferredFanOutSuite = (adapter: Adapter) =>
  describe(`Deferred fan-out (${adapter.name})`, () => {
    const provide = <A, E>(self: Effect.Effect<A, E, TestEngine | Webhooks>) =>
      // A memo map of its own (v4 shares one between provides): the engine's `Webhooks` is built already.
      self.pipe(Effect.provide(services, { local: true }), provideEngine(adapter))

    it.effect("a write leaves a marker; one fan-out step makes many events' deliveries, due at each event's time", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const a = yield* makeWorkspace()
        const b = yield* makeWorkspace()
        const [a1, a2] = [yield* addWebhook(a.workspace.id, ["*"]), yield* addWebhook(a.workspace.id, ["*"])]
        const b1 = yield* addWebhook(b.workspace.id, ["agent.deleted"])
        const recorded = []
        for (let i = 0; i < 5; i++) recorded.push(yield* record("agent.deleted", `a${i}`).pipe(as(a.principal)))
        for (let i = 0; i < 3; i++) recorded.push(yield* record("agent.deleted", `b${i}`).pipe(as(b.principal)))
        yield* record("agent.created", "not subscribed").pipe(as(b.principal))
        assert.strictEqual((yield* deliveredTo(a.workspace.id, a1)).length, 0, "nothing before the fan-out")

        const queue = yield* DeliveryQueue
        assert.strictEqual(yield* queue.fanOut(100), 8, "one marker per event with a subscriber")
        assert.strictEqual(yield* queue.fanOut(100), 0, "the markers are gone")
        const occurred = new Map(recorded.map((e) => [e.id, e.occurred_at]))
        for (const [workspace, webhook, count] of [[a, a1, 5], [a, a2, 5], [b, b1, 3]] as const) {
          const items = yield* deliveredTo(workspace.workspace.id, webhook)
          assert.strictEqual(items.length, count)
          for (const d of items) {
            assert.strictEqual(d.status, "pending")
            assert.deepStrictEqual(d.next_attempt_at, occurred.get(d.event_id), "due at the event's time (D38)")
            assert.deepStrictEqual(d.created_at, occurred.get(d.event_id))
            assert.match(d.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
          }
        }
      }).pipe(provide))

    it.effect("a webhook created, enabled or re-targeted after an event does not get it; one deleted gets nothing", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const { principal, workspace } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        yield* Effect.gen(function*() {
          const early = yield* create(["*"])
          const paused = yield* addWebhook(workspace.id, ["*"], { active: false })
          const doomed = yield* create(["*"])
          const retargeted = yield* create(["agent.deleted"])
          const before = yield* record("agent.deleted", "before")
          // Each change fans out the waiting event first, under the subscriptions it committed with.
          const late = yield* create(["*"])
          yield* webhooks.enable(paused.id)
          yield* webhooks.update(retargeted.id, { events: ["agent.created"] })
          yield* webhooks.delete(doomed.id)
          const after = yield* record("agent.deleted", "after")
          yield* fanOutPending

          const eventsOf = (webhook: Pick<Webhook, "id">) =>
            Effect.map(deliveredTo(workspace.id, webhook), (items) => items.map((d) => d.event_id).sort())
          assert.deepStrictEqual(yield* eventsOf(early), [before.id, after.id].sort())
          assert.deepStrictEqual(yield* eventsOf(late), [after.id], "created after the event")
          assert.deepStrictEqual(yield* eventsOf(paused), [after.id], "inactive at the event's commit")
          assert.deepStrictEqual(yield* eventsOf(retargeted), [before.id], "subscribed to it at the event's commit")
          const gone = yield* SqlClient.SqlClient
          const left = yield* gone`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE webhook_id = ${doomed.id}`
          assert.strictEqual(Number(left[0]!["n"]), 0, "a deleted webhook's deliveries go with it")
        }).pipe(as(principal))

        // A workspace whose event nobody subscribed to writes no marker: a webhook created later has nothing.
        const quiet = yield* makeWorkspace()
        yield* record("agent.deleted", "unheard").pipe(as(quiet.principal))
        const newcomer = yield* create(["*"]).pipe(as(quiet.principal))
        assert.strictEqual(yield* fanOutPending, 0)
        assert.strictEqual((yield* deliveredTo(quiet.workspace.id, newcomer)).length, 0)
      }).pipe(provide))

    it.effect("a deactivation fans the waiting events out first: their delivery is cancelled, recoverable (D38)", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const { principal, workspace } = yield* makeWorkspace()
        const webhook = yield* addWebhook(workspace.id, ["*"])
        const watcher = yield* addWebhook(workspace.id, ["webhook.deactivated"])
        const queue = yield* DeliveryQueue
        const first = yield* record("agent.deleted", "first").pipe(as(principal))
        yield* fanOutPending
        const now = yield* DateTime.now
        const [claimed] = yield* queue.claimDue({
          now,
          leaseUntil: DateTime.add(now, { seconds: 15 }),
          claimant: "test",
          limit: 1
        })
        assert.strictEqual(claimed!.event.id, first.id)
        const waiting = yield* record("agent.deleted", "waiting").pipe(as(principal))
        const attempt = { attemptedAt: now, durationMs: 3, responseStatus: 410, error: null, responseExcerpt: null }
        assert.isTrue(yield* queue.complete(claimed!, attempt, DeliveryOutcome.Gone(), now))

        const statuses = new Map((yield* deliveredTo(workspace.id, webhook)).map((d) => [d.event_id, d.status]))
        assert.strictEqual(statuses.get(first.id), "failed")
        assert.strictEqual(statuses.get(waiting.id), "cancelled", "fanned out before the deactivation, then cancelled")
        // The webhook.deactivated event goes to its subscriber in the dispatcher's own transaction.
        assert.deepStrictEqual((yield* deliveredTo(workspace.id, watcher)).map((d) => d.event), ["webhook.deactivated"])
        assert.strictEqual(yield* fanOutPending, 0)
      }).pipe(provide))

    it.effect("concurrent fan-out steps make each event's deliveries exactly once (D43)", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const { principal, workspace } = yield* makeWorkspace()
        const hooks = [yield* addWebhook(workspace.id, ["*"]), yield* addWebhook(workspace.id, ["*"])]
        for (let i = 0; i < 30; i++) yield* record("agent.deleted", `${i}`).pipe(as(principal))
        const queue = yield* DeliveryQueue
        // Six dispatchers, three events per step each: on PostgreSQL they run at once on the pool's connections.
        const step = (made: number): Effect.Effect<number, unknown> =>
          Effect.flatMap(queue.fanOut(3), (n) => n === 0 ? Effect.succeed(made) : step(made + n))
        const made = yield* Effect.all(Array.from({ length: 6 }, () => step(0)), { concurrency: "unbounded" })
        assert.strictEqual(made.reduce((x, y) => x + y, 0), 30, "every event fanned out by exactly one of them")
        for (const hook of hooks) {
          const events = (yield* deliveredTo(workspace.id, hook)).map((d) => d.event_id)
          assert.strictEqual(events.length, 30)
          assert.strictEqual(new Set(events).size, 30)
        }
      }).pipe(provide))

    if (adapter.name === "postgres") {
      it.effect("a subscription change waits for a writer whose marker is not committed yet, then fans it out", () =>
        Effect.gen(function*() {
          yield* drainQueue
          const { principal, workspace } = yield* makeWorkspace()
          const early = yield* addWebhook(workspace.id, ["*"])
          const sql = yield* SqlClient.SqlClient
          const tx = yield* Transactor
          const release = yield* Deferred.make<void>()
          const written = yield* Deferred.make<void>()
          // A writer holds its transaction open after recording its event (and its marker's shared lock).
          const writer = yield* Effect.forkChild(
            tx.withTransaction(Effect.gen(function*() {
              const event = yield* Effect.flatMap(Events, (e) => e.record("agent.deleted", { id: "slow" }))
              yield* Deferred.succeed(written, undefined)
              yield* Deferred.await(release)
              return event
            })).pipe(as(principal))
          )
          yield* Deferred.await(written)
          const creating = yield* Effect.forkChild(create(["*"]).pipe(as(principal)))
          // The create waits for the writer's lock: it shows in pg_locks as an advisory lock not granted.
          for (let i = 0;; i++) {
            const waiting = yield* sql`SELECT COUNT(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`
            if (Number(waiting[0]!["n"]) > 0) break
            if (i > 10_000) return yield* Effect.die(new Error("the create did not wait for the writer"))
            yield* Effect.yieldNow
          }
          assert.isUndefined(creating.pollUnsafe())
          yield* Deferred.succeed(release, undefined)
          const event = yield* Fiber.join(writer)
          const late = yield* Fiber.join(creating)
          yield* fanOutPending
          assert.deepStrictEqual((yield* deliveredTo(workspace.id, early)).map((d) => d.event_id), [event.id])
          assert.strictEqual((yield* deliveredTo(workspace.id, late)).length, 0, "committed before the webhook")
        }).pipe(provide))
    }
  })
