import { assert, describe, it } from "@effect/vitest"
import {
  type ClaimedDelivery,
  CreateCustomer,
  Customers,
  DeliveryOutcome,
  DeliveryQueue,
  Events,
  IdGenerator,
  Transactor,
  Webhook,
  type WebhookEventType,
  WebhookId,
  WebhookRepo,
  type WorkspaceId
} from "@support-engine/core"
import { DateTime, Duration, Effect, Fiber, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { type Adapter, as, fanOutPending, makeWorkspace, provideEngine } from "./Harness.js"

const absolute = (millis: number) => DateTime.makeUnsafe(millis)

/**
 * Times relative to the test's start. A test does not assume the clock starts at 0: a `layer(...)` block registered
 * earlier in the same file makes later `it.effect` tests share its TestClock.
 */
const relativeClock = Effect.map(
  DateTime.now,
  (start) => (millis: number) => DateTime.add(start, { milliseconds: millis })
)
export const SECRET = "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMw=="

/** A webhook row as the service would insert it. */
export const addWebhook = (
  workspaceId: WorkspaceId,
  events: ReadonlyArray<WebhookEventType>,
  options: { readonly active?: boolean; readonly url?: string } = {}
) =>
  Effect.gen(function*() {
    const repo = yield* WebhookRepo
    const ids = yield* IdGenerator
    const created = yield* DateTime.now
    const webhook = new Webhook({
      id: WebhookId.make(yield* ids.uuid),
      url: options.url ?? "https://hooks.example.com/in",
      events,
      description: null,
      is_active: options.active ?? true,
      consecutive_failures: 0,
      deactivated_at: null,
      deactivation_reason: null,
      previous_secret_expires_at: null,
      created_at: created,
      updated_at: created
    })
    // As the service does: the subscriptions change after the workspace's pending events are fanned out.
    yield* (yield* Transactor).withTransaction(
      Effect.andThen(repo.lockSubscriptions(workspaceId), repo.insert(workspaceId, webhook, Redacted.make(SECRET)))
    )
    return webhook
  })

/**
 * Leases every delivery earlier tests left due, far into the future: the queue is global (all workspaces), and the
 * suites of one run share a database.
 */
export const drainQueue = Effect.flatMap(DeliveryQueue, (queue) =>
  Effect.andThen(
    fanOutPending,
    queue.claimDue({
      now: absolute(Date.UTC(9000, 0, 1)),
      leaseUntil: absolute(Date.UTC(9999, 0, 1)),
      claimant: "drain",
      limit: 1_000_000
    })
  ))

/** Claims as the dispatcher does: the pending fan-outs first. */
const claimAll = (now: DateTime.Utc, claimant = "dispatcher-1", limit = 100) =>
  Effect.flatMap(
    DeliveryQueue,
    (queue) =>
      Effect.andThen(
        fanOutPending,
        queue.claimDue({ now, leaseUntil: DateTime.add(now, { seconds: 15 }), claimant, limit })
      )
  )

const attempt = (attemptedAt: DateTime.Utc, responseStatus: number | null, error: string | null = null) => ({
  attemptedAt,
  durationMs: 12,
  responseStatus,
  error,
  responseExcerpt: responseStatus === null ? null : `answer ${responseStatus}`
})

const deliveriesOf = (workspaceId: WorkspaceId, webhook: Webhook) =>
  Effect.flatMap(WebhookRepo, (repo) => repo.listDeliveries(workspaceId, webhook.id, {}, { limit: 100, offset: 0 }))

const webhookOf = (workspaceId: WorkspaceId, webhook: Webhook) =>
  Effect.flatMap(WebhookRepo, (repo) => Effect.flatMap(repo.findById(workspaceId, webhook.id), Effect.fromOption))

/** Webhook storage (D36-D38, D43): fan-out in the event's transaction, leased claims, outcomes, the log. */
export const webhooksSuite = (adapter: Adapter) =>
  describe(`Webhooks storage (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("an event becomes one delivery per active subscribed webhook of its workspace (D37)", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const at = yield* relativeClock
        const { principal, workspace } = yield* makeWorkspace()
        const other = yield* makeWorkspace()
        const typed = yield* addWebhook(workspace.id, ["customer.created", "customer.updated"])
        const star = yield* addWebhook(workspace.id, ["*"])
        const unrelated = yield* addWebhook(workspace.id, ["agent.created"])
        const inactive = yield* addWebhook(workspace.id, ["*"], { active: false })
        const foreign = yield* addWebhook(other.workspace.id, ["*"])

        yield* TestClock.adjust(Duration.seconds(3))
        const customer = yield* (yield* Customers).create(new CreateCustomer({ email: "a@x.io" })).pipe(as(principal))
        // The write left a marker; the deliveries are made by the fan-out step (issue 16 item 2).
        assert.strictEqual((yield* deliveriesOf(workspace.id, typed)).total, 0)
        assert.strictEqual(yield* fanOutPending, 1)

        for (const webhook of [typed, star]) {
          const { items, total } = yield* deliveriesOf(workspace.id, webhook)
          assert.strictEqual(total, 1)
          assert.strictEqual(items.length, 1)
          const d = items[0]!
          assert.strictEqual(d.event, "customer.created")
          assert.strictEqual(d.webhook_id, webhook.id)
          assert.strictEqual(d.status, "pending")
          assert.strictEqual(d.attempts, 0)
          assert.deepStrictEqual(d.next_attempt_at, at(3000))
          assert.deepStrictEqual(d.attempt_log, [])
        }
        for (const webhook of [unrelated, inactive]) {
          assert.strictEqual((yield* deliveriesOf(workspace.id, webhook)).items.length, 0)
        }
        assert.strictEqual((yield* deliveriesOf(other.workspace.id, foreign)).items.length, 0)

        const claimed = yield* claimAll(at(3000))
        assert.deepStrictEqual(claimed.map((c) => c.webhookId).sort(), [typed.id, star.id].sort())
        const first = claimed[0]!
        assert.strictEqual(first.workspaceId, workspace.id)
        assert.strictEqual(first.organizationId, workspace.organization_id)
        assert.strictEqual(first.url, "https://hooks.example.com/in")
        assert.strictEqual(Redacted.value(first.secrets.current), SECRET)
        assert.isNull(first.secrets.previous)
        assert.strictEqual(first.event.event, "customer.created")
        assert.deepStrictEqual(first.event.data["id"], customer.id)
        assert.deepStrictEqual({ ...first.event.actor }, { ...principal.actor })
        assert.strictEqual(first.attempts, 0)
      }).pipe(provide))

    it.effect("an event rolled back leaves no delivery; the wake-up signal fires only after a commit", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const { principal, workspace } = yield* makeWorkspace()
        const webhook = yield* addWebhook(workspace.id, ["*"])
        const tx = yield* Transactor
        const events = yield* Events
        const queue = yield* DeliveryQueue

        const failed = yield* Effect.flip(
          tx.withTransaction(Effect.andThen(events.record("agent.deleted", { id: webhook.id }), Effect.fail("boom")))
            .pipe(as(principal))
        )
        assert.strictEqual(failed, "boom")
        assert.strictEqual(yield* fanOutPending, 0, "no marker survives the rollback")
        assert.strictEqual((yield* deliveriesOf(workspace.id, webhook)).items.length, 0)

        const signal = yield* queue.changes
        const waiter = yield* Effect.forkChild(signal)
        const inside = yield* tx.withTransaction(Effect.gen(function*() {
          yield* events.record("agent.deleted", { id: webhook.id })
          yield* Effect.yieldNow
          return waiter.pollUnsafe()
        })).pipe(as(principal))
        assert.isUndefined(inside, "no wake-up before the commit")
        yield* Fiber.join(waiter)
        assert.strictEqual(yield* fanOutPending, 1)
        assert.strictEqual((yield* deliveriesOf(workspace.id, webhook)).items.length, 1)
      }).pipe(provide))

    it.effect("a claim leases due deliveries once, at most `limit` at a time; an expired lease is due again (D38)", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const at = yield* relativeClock
        const { principal, workspace } = yield* makeWorkspace()
        const webhook = yield* addWebhook(workspace.id, ["*"])
        const events = yield* Events
        const tx = yield* Transactor
        for (let i = 0; i < 3; i++) {
          yield* tx.withTransaction(events.record("agent.deleted", { id: `${i}` })).pipe(as(principal))
          yield* TestClock.adjust(Duration.millis(10))
        }
        const queue = yield* DeliveryQueue
        yield* fanOutPending
        assert.deepStrictEqual(yield* queue.nextDueAt, Option.some(at(0)), "due at the event's time")

        const now = at(100)
        const firstPage = yield* claimAll(now, "a", 2)
        assert.deepStrictEqual(firstPage.map((c) => c.event.data["id"]), ["0", "1"])
        const secondPage = yield* claimAll(now, "b", 2)
        assert.deepStrictEqual(secondPage.map((c) => c.event.data["id"]), ["2"])
        assert.strictEqual((yield* claimAll(now, "c")).length, 0, "leased deliveries are not claimed twice")
        assert.deepStrictEqual(yield* queue.nextDueAt, Option.some(at(15_100)), "due again when the lease ends")
        assert.strictEqual((yield* claimAll(at(15_099), "c")).length, 0)

        const reclaimed = yield* claimAll(at(15_100), "c")
        assert.strictEqual(reclaimed.length, 3, "an expired lease is claimable again (crash safety)")
        // The first holder's claims are gone: completing one of them now changes nothing.
        const stale = yield* queue.complete(
          firstPage[0]!,
          attempt(at(15_200), 200),
          DeliveryOutcome.Delivered(),
          at(15_200)
        )
        assert.isFalse(stale)
        const { items } = yield* deliveriesOf(workspace.id, webhook)
        assert.isTrue(items.every((d) => d.status === "pending" && d.attempts === 0))
      }).pipe(provide))

    it.effect("dispatchers claiming at the same time never share a delivery (D43)", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const at = yield* relativeClock
        const { principal, workspace } = yield* makeWorkspace()
        yield* addWebhook(workspace.id, ["*"])
        const tx = yield* Transactor
        const events = yield* Events
        for (let i = 0; i < 12; i++) {
          yield* tx.withTransaction(events.record("agent.deleted", { id: `${i}` })).pipe(as(principal))
        }
        // The deliveries first: six concurrent fan-outs would skip each other's locked markers (SKIP LOCKED), and
        // a claim could look before the one that took them committed. This test is about claims; concurrent
        // fan-out steps are DeferredFanOutSuite's.
        yield* fanOutPending
        const claims = yield* Effect.forEach(
          Array.from({ length: 6 }, (_, i) => `dispatcher-${i}`),
          (claimant) => claimAll(at(0), claimant, 3),
          { concurrency: "unbounded" }
        )
        const ids = claims.flat().map((c) => c.id)
        assert.strictEqual(ids.length, 12)
        assert.strictEqual(new Set(ids).size, 12)
        for (const [i, claimed] of claims.entries()) {
          assert.isTrue(claimed.every((c) => c.claimant === `dispatcher-${i}`))
        }
      }).pipe(provide))

    it.effect("outcomes: retry schedules, delivered resets the failure count, every attempt is logged (D38)", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const at = yield* relativeClock
        const { principal, workspace } = yield* makeWorkspace()
        const webhook = yield* addWebhook(workspace.id, ["*"])
        const queue = yield* DeliveryQueue
        const record = (id: string) =>
          Effect.flatMap(Transactor, (tx) =>
            tx.withTransaction(Effect.flatMap(Events, (e) => e.record("agent.deleted", { id }))))
            .pipe(as(principal))

        yield* record("one")
        const [first] = yield* claimAll(at(0))
        const retried = yield* queue.complete(
          first!,
          attempt(at(0), 500),
          DeliveryOutcome.Retry({ at: at(60_000) }),
          at(20)
        )
        assert.isTrue(retried)
        let [delivery] = (yield* deliveriesOf(workspace.id, webhook)).items
        assert.strictEqual(delivery!.status, "pending")
        assert.strictEqual(delivery!.attempts, 1)
        assert.strictEqual(delivery!.response_status, 500)
        assert.deepStrictEqual(delivery!.next_attempt_at, at(60_000))
        assert.deepStrictEqual(delivery!.last_attempt_at, at(0))
        assert.strictEqual(delivery!.attempt_log.length, 1)
        assert.deepInclude({ ...delivery!.attempt_log[0]! }, {
          attempt: 1,
          duration_ms: 12,
          response_status: 500,
          error: null,
          response_excerpt: "answer 500"
        })
        assert.strictEqual((yield* claimAll(at(59_999))).length, 0)

        const [second] = yield* claimAll(at(60_000))
        assert.strictEqual(second!.attempts, 1)
        assert.strictEqual(second!.roundAttempts, 1)
        yield* queue.complete(
          second!,
          attempt(at(60_000), null, "timeout"),
          DeliveryOutcome.Failed({ deactivateAfter: 5 }),
          at(70_000)
        )
        assert.strictEqual((yield* webhookOf(workspace.id, webhook)).consecutive_failures, 1)
        ;[delivery] = (yield* deliveriesOf(workspace.id, webhook)).items
        assert.strictEqual(delivery!.status, "failed")
        assert.strictEqual(delivery!.last_error, "timeout")
        assert.isNull(delivery!.next_attempt_at)

        yield* record("two")
        const [third] = yield* claimAll(yield* DateTime.now)
        yield* queue.complete(third!, attempt(at(1), 204), DeliveryOutcome.Delivered(), at(2))
        const after = yield* webhookOf(workspace.id, webhook)
        assert.strictEqual(after.consecutive_failures, 0)
        assert.isTrue(after.is_active)
        const delivered = (yield* deliveriesOf(workspace.id, webhook)).items.find((d) =>
          d.status === "delivered"
        )!
        assert.deepStrictEqual(delivered.delivered_at, at(2))
        assert.isNull(delivered.next_attempt_at)
      }).pipe(provide))

    it.effect("the Nth consecutive failed delivery deactivates and cancels the pending ones; so does a 410 (D38)", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const at = yield* relativeClock
        const { principal, workspace } = yield* makeWorkspace()
        const failing = yield* addWebhook(workspace.id, ["agent.deleted"])
        const gone = yield* addWebhook(workspace.id, ["agent.created"])
        const queue = yield* DeliveryQueue
        const events = yield* Events
        const tx = yield* Transactor
        const record = (type: "agent.deleted" | "agent.created") =>
          tx.withTransaction(events.record(type, { id: "x" })).pipe(as(principal))

        for (let i = 0; i < 3; i++) yield* record("agent.deleted")
        for (let i = 0; i < 2; i++) yield* record("agent.created")
        const claimed = yield* claimAll(at(0), "d")
        const toFailing = claimed.filter((c: ClaimedDelivery) => c.webhookId === failing.id)
        assert.strictEqual(toFailing.length, 3)
        for (const c of toFailing.slice(0, 2)) {
          yield* queue.complete(c, attempt(at(0), 500), DeliveryOutcome.Failed({ deactivateAfter: 2 }), at(5))
        }
        const deactivated = yield* webhookOf(workspace.id, failing)
        assert.isFalse(deactivated.is_active)
        assert.strictEqual(deactivated.deactivation_reason, "consecutive_failures")
        assert.deepStrictEqual(deactivated.deactivated_at, at(5))
        const statuses = (yield* deliveriesOf(workspace.id, failing)).items.map((d) => d.status).sort()
        assert.deepStrictEqual(statuses, ["cancelled", "failed", "failed"])

        assert.isFalse(
          yield* queue.complete(toFailing[2]!, attempt(at(0), 200), DeliveryOutcome.Delivered(), at(6)),
          "the answer to a cancelled delivery changes nothing"
        )
        const toGone = claimed.filter((c) => c.webhookId === gone.id)
        assert.strictEqual(toGone.length, 2)
        yield* queue.complete(toGone[0]!, attempt(at(0), 410), DeliveryOutcome.Gone(), at(6))
        const goneWebhook = yield* webhookOf(workspace.id, gone)
        assert.isFalse(goneWebhook.is_active)
        assert.strictEqual(goneWebhook.deactivation_reason, "gone")
        const goneStatuses = (yield* deliveriesOf(workspace.id, gone)).items.map((d) => d.status).sort()
        assert.deepStrictEqual(goneStatuses, ["cancelled", "failed"])
        assert.isFalse(
          yield* queue.complete(toGone[1]!, attempt(at(0), 200), DeliveryOutcome.Delivered(), at(7)),
          "a cancelled delivery's late answer changes nothing"
        )

        yield* record("agent.created")
        assert.strictEqual((yield* deliveriesOf(workspace.id, gone)).total, 2, "a deactivated webhook gets nothing")
        assert.strictEqual((yield* claimAll(at(100_000))).length, 0, "nothing is due for deactivated webhooks")
      }).pipe(provide))

    it.effect("redeliver requeues with a fresh budget; on an inactive webhook it waits for enable", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const at = yield* relativeClock
        const { principal, workspace } = yield* makeWorkspace()
        const webhook = yield* addWebhook(workspace.id, ["*"])
        const repo = yield* WebhookRepo
        const queue = yield* DeliveryQueue
        yield* Effect.flatMap(Transactor, (tx) =>
          tx.withTransaction(Effect.flatMap(Events, (e) => e.record("agent.deleted", { id: "x" }))))
          .pipe(as(principal))
        const [c] = yield* claimAll(at(0))
        yield* queue.complete(c!, attempt(at(0), 410), DeliveryOutcome.Gone(), at(1))
        const [failed] = (yield* deliveriesOf(workspace.id, webhook)).items

        yield* repo.redeliver(workspace.id, webhook.id, failed!.id, at(10))
        let [d] = (yield* deliveriesOf(workspace.id, webhook)).items
        assert.strictEqual(d!.status, "pending")
        assert.isNull(d!.next_attempt_at, "paused while the webhook is inactive")
        assert.strictEqual((yield* claimAll(at(100))).length, 0)

        yield* repo.enable(workspace.id, webhook.id, at(200))
        const enabled = yield* webhookOf(workspace.id, webhook)
        assert.isTrue(enabled.is_active)
        assert.isNull(enabled.deactivation_reason)
        assert.strictEqual(enabled.consecutive_failures, 0)
        ;[d] = (yield* deliveriesOf(workspace.id, webhook)).items
        assert.deepStrictEqual(d!.next_attempt_at, at(200))
        const [again] = yield* claimAll(at(200))
        assert.strictEqual(again!.id, failed!.id)
        assert.strictEqual(again!.attempts, 1)
        assert.strictEqual(again!.roundAttempts, 0, "a redelivery starts a new round of attempts")
        yield* queue.complete(again!, attempt(at(200), 200), DeliveryOutcome.Delivered(), at(201))
        ;[d] = (yield* deliveriesOf(workspace.id, webhook)).items
        assert.strictEqual(d!.status, "delivered")
        assert.deepStrictEqual(
          d!.attempt_log.map((a) =>
            a.attempt
          ),
          [1, 2]
        )

        yield* repo.redeliver(workspace.id, webhook.id, failed!.id, at(300))
        ;[d] = (yield* deliveriesOf(workspace.id, webhook)).items
        assert.deepStrictEqual(d!.next_attempt_at, at(300))
        assert.strictEqual(d!.status, "pending")
      }).pipe(provide))

    it.effect("release gives a stopping dispatcher's leases back at once", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const at = yield* relativeClock
        const { principal, workspace } = yield* makeWorkspace()
        yield* addWebhook(workspace.id, ["*"])
        yield* Effect.flatMap(
          Transactor,
          (tx) => tx.withTransaction(Effect.flatMap(Events, (e) => e.record("agent.deleted", { id: "x" })))
        )
          .pipe(as(principal))
        const queue = yield* DeliveryQueue
        assert.strictEqual((yield* claimAll(at(0), "stopping")).length, 1)
        assert.strictEqual(yield* queue.release("someone-else", at(1)), 0)
        assert.strictEqual(yield* queue.release("stopping", at(1)), 1)
        assert.deepStrictEqual(yield* queue.nextDueAt, Option.some(at(1)))
        assert.strictEqual((yield* claimAll(at(1), "next")).length, 1)
      }).pipe(provide))

    it.effect("webhooks: update re-targets the fan-out, delete removes deliveries, lists page with totals", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const { principal, workspace } = yield* makeWorkspace()
        const repo = yield* WebhookRepo
        const tx = yield* Transactor
        const events = yield* Events
        const record = (id: string) => tx.withTransaction(events.record("agent.deleted", { id })).pipe(as(principal))
        const first = yield* addWebhook(workspace.id, ["agent.created"])
        yield* TestClock.adjust(Duration.millis(1))
        const second = yield* addWebhook(workspace.id, ["*"], { url: "https://two.example.com" })

        const listed = yield* repo.list(workspace.id, { limit: 1, offset: 0 })
        assert.strictEqual(listed.total, 2)
        assert.deepStrictEqual(listed.items.map((w) => w.id), [second.id])

        yield* record("before")
        const retargeted = new Webhook({ ...first, events: ["agent.deleted"], url: "https://new.example.com" })
        // "before" is still waiting for its fan-out: the change fans it out first, under the old subscriptions.
        yield* tx.withTransaction(
          Effect.andThen(repo.lockSubscriptions(workspace.id), repo.update(workspace.id, retargeted))
        )
        assert.strictEqual((yield* deliveriesOf(workspace.id, first)).total, 0)
        assert.strictEqual((yield* deliveriesOf(workspace.id, second)).total, 1)
        assert.deepStrictEqual(yield* webhookOf(workspace.id, first), retargeted)
        yield* record("after")
        yield* fanOutPending
        assert.strictEqual((yield* deliveriesOf(workspace.id, first)).total, 1)

        for (let i = 0; i < 3; i++) {
          yield* TestClock.adjust(Duration.millis(1))
          yield* record(`more-${i}`)
        }
        yield* fanOutPending
        const page = yield* repo.listDeliveries(workspace.id, second.id, {}, { limit: 2, offset: 0 })
        assert.strictEqual(page.total, 5)
        assert.isTrue(page.items[0]!.created_at.epochMilliseconds >= page.items[1]!.created_at.epochMilliseconds)
        const pending = yield* repo.listDeliveries(workspace.id, second.id, { status: "pending" }, {
          limit: 2,
          offset: 0
        })
        assert.strictEqual(pending.total, 5)
        const delivered = yield* repo.listDeliveries(workspace.id, second.id, { status: "delivered" }, {
          limit: 2,
          offset: 0
        })
        assert.strictEqual(delivered.total, 0)

        const one = page.items[0]!
        assert.isTrue(Option.isSome(yield* repo.findDelivery(workspace.id, second.id, one.id)))
        assert.isTrue(Option.isNone(yield* repo.findDelivery(workspace.id, first.id, one.id)), "scoped by webhook")

        assert.isTrue(yield* tx.withTransaction(repo.delete(workspace.id, second.id)))
        assert.isFalse(yield* tx.withTransaction(repo.delete(workspace.id, second.id)))
        assert.strictEqual((yield* repo.list(workspace.id, { limit: 10, offset: 0 })).total, 1)
        assert.isTrue(Option.isNone(yield* repo.findDelivery(workspace.id, second.id, one.id)))
        const other = yield* makeWorkspace()
        assert.isTrue(Option.isNone(yield* repo.findById(other.workspace.id, first.id)), "scoped by workspace")
      }).pipe(provide))

    it.effect("the attempt log keeps the latest attempts", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const at = yield* relativeClock
        const { principal, workspace } = yield* makeWorkspace()
        const webhook = yield* addWebhook(workspace.id, ["*"])
        const queue = yield* DeliveryQueue
        yield* Effect.flatMap(
          Transactor,
          (tx) => tx.withTransaction(Effect.flatMap(Events, (e) => e.record("agent.deleted", { id: "x" })))
        )
          .pipe(as(principal))
        const total = 23
        for (let i = 0; i < total; i++) {
          const [c] = yield* claimAll(at(i * 1000))
          const retry = DeliveryOutcome.Retry({ at: at((i + 1) * 1000) })
          assert.isTrue(yield* queue.complete(c!, attempt(at(i * 1000), 500), retry, at(i * 1000)))
        }
        const [d] = (yield* deliveriesOf(workspace.id, webhook)).items
        assert.strictEqual(d!.attempts, total)
        assert.deepStrictEqual(d!.attempt_log.map((a) => a.attempt), Array.from({ length: 20 }, (_, i) => i + 4))
      }).pipe(provide))
  })
