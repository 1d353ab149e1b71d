import { assert, describe, it } from "@effect/vitest"
import {
  BusinessStateError,
  type ClaimedDelivery,
  CreateWebhook,
  DeliveryOutcome,
  DeliveryQueue,
  Events,
  HostResolver,
  Transactor,
  WebhookConfig,
  WebhookRepo,
  Webhooks
} from "@support-engine/core"
import { DateTime, Effect, Layer } from "effect"
import { deliveryIdPrefix } from "../../src/webhooks/SqlFanOut.js"
import { type Adapter, as, fanOutPending, makeWorkspace, provideEngine, statementsOf } from "./Harness.js"
import { addWebhook, drainQueue } from "./WebhooksSuite.js"

/** Records one event as the current principal, in its own transaction (D34). */
const recordOne = () =>
  Effect.gen(function*() {
    const tx = yield* Transactor
    const events = yield* Events
    return yield* tx.withTransaction(events.record("agent.deleted", { id: "a" }))
  })

const claim = (
  now: DateTime.Utc,
  limits: { readonly limit: number; readonly perWebhook?: number; readonly perWorkspace?: number },
  claimant = "fair"
) =>
  Effect.flatMap(
    DeliveryQueue,
    (queue) =>
      Effect.andThen(
        fanOutPending,
        queue.claimDue({ now, leaseUntil: DateTime.add(now, { seconds: 15 }), claimant, ...limits })
      )
  )

const countBy = <K extends string>(claimed: ReadonlyArray<ClaimedDelivery>, key: (c: ClaimedDelivery) => K) => {
  const counts = new Map<K, number>()
  for (const c of claimed) counts.set(key(c), (counts.get(key(c)) ?? 0) + 1)
  return counts
}

/** Any host name is a public address here: the suite tests the limit, not the URL policy. */
const PublicResolver = Layer.succeed(HostResolver, {
  resolve: () => Effect.succeed([{ address: "93.184.216.34", family: 4 as const }])
})

/**
 * Issue 16, item 2 (D37, D43, D50): the fan-out's cost does not grow with the subscribers, claims are fair across
 * workspaces and webhooks within the limits of in-flight attempts, and the webhook limit holds under concurrent
 * creates.
 */
export const fairDeliverySuite = (adapter: Adapter) =>
  describe(`Fair delivery storage (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("a write with 20 webhooks runs the same statements as with none; the fan-out is one INSERT ... SELECT", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const idle = yield* makeWorkspace()
        const busy = yield* makeWorkspace()
        for (let i = 0; i < 20; i++) yield* addWebhook(busy.workspace.id, ["*"])

        const none = yield* statementsOf(recordOne()).pipe(as(idle.principal))
        const twenty = yield* statementsOf(recordOne()).pipe(as(busy.principal))

        // Issue 16 item 2: the writer's transaction writes its event and one marker, no delivery and no counter.
        assert.strictEqual(twenty.statements.length, none.statements.length, twenty.statements.join("\n"))
        const touchesDeliveries = (s: string) => /webhook_deliveries/.test(s)
        assert.strictEqual(twenty.statements.filter(touchesDeliveries).length, 0)
        assert.strictEqual(twenty.statements.filter((s) => /INSERT INTO pending_fanouts/.test(s)).length, 1)
        const counterWrites = (list: ReadonlyArray<string>) => list.filter((s) => /workspace_counters/.test(s)).length
        assert.strictEqual(counterWrites(twenty.statements), counterWrites(none.statements), "no counter per webhook")

        // The fan-out step: the deliveries of every pending event in one statement, whatever the subscribers.
        const step = yield* statementsOf(Effect.flatMap(DeliveryQueue, (queue) => queue.fanOut(100)))
        assert.strictEqual(step.result, 1, "one event: the workspace without webhooks left no marker")
        const inserts = step.statements.filter(touchesDeliveries)
        assert.strictEqual(inserts.length, 1)
        assert.match(inserts[0]!, /INSERT INTO webhook_deliveries[\s\S]*SELECT/)

        const claimed = yield* claim(twenty.result.occurred_at, { limit: 100 })
        const mine = claimed.filter((c) => c.workspaceId === busy.workspace.id)
        assert.strictEqual(mine.length, 20, "one delivery per webhook")
        assert.strictEqual(new Set(mine.map((c) => c.webhookId)).size, 20)
        for (const c of mine) {
          assert.match(c.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
        }
      }).pipe(provide))

    it.effect("claims go round-robin across workspaces and webhooks within the in-flight limits", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const a = yield* makeWorkspace()
        const b = yield* makeWorkspace()
        const aHooks = [
          yield* addWebhook(a.workspace.id, ["*"]),
          yield* addWebhook(a.workspace.id, ["*"]),
          yield* addWebhook(a.workspace.id, ["*"])
        ]
        // A's backlog is older than B's: without fairness every slot would go to A.
        for (let i = 0; i < 10; i++) yield* recordOne().pipe(as(a.principal))
        const bHook = yield* addWebhook(b.workspace.id, ["*"])
        yield* recordOne().pipe(as(b.principal))
        const last = yield* recordOne().pipe(as(b.principal))
        const now = DateTime.add(last.occurred_at, { seconds: 1 })
        const limits = { limit: 8, perWebhook: 2, perWorkspace: 4 }

        const first = yield* claim(now, limits)
        const byWorkspace = countBy(first, (c) => c.workspaceId)
        assert.strictEqual(byWorkspace.get(b.workspace.id), 2, "B's two deliveries despite A's older backlog")
        assert.strictEqual(byWorkspace.get(a.workspace.id), 4, "A up to its workspace limit")
        const byWebhook = countBy(first, (c) => c.webhookId)
        for (const hook of aHooks) assert.isAtMost(byWebhook.get(hook.id) ?? 0, 2)
        assert.isAtLeast(new Set(first.filter((c) => c.workspaceId === a.workspace.id).map((c) => c.webhookId)).size, 2)
        assert.strictEqual(byWebhook.get(bHook.id), 2)

        assert.deepStrictEqual(yield* claim(now, limits, "other"), [], "both workspaces at their limits")

        // One of A's attempts ends: A may take exactly one more, whoever claims.
        const done = first.find((c) => c.workspaceId === a.workspace.id)!
        const queue = yield* DeliveryQueue
        yield* queue.complete(
          done,
          {
            attemptedAt: now,
            durationMs: 5,
            responseStatus: 200,
            error: null,
            responseExcerpt: null
          },
          DeliveryOutcome.Delivered(),
          now
        )
        const next = yield* claim(now, limits, "other")
        assert.strictEqual(next.length, 1)
        assert.strictEqual(next[0]!.workspaceId, a.workspace.id)

        // Leases that ended are no longer in flight (a crashed dispatcher holds nothing).
        const later = DateTime.add(now, { seconds: 16 })
        const afterLeases = countBy(yield* claim(later, limits), (c) => c.workspaceId)
        assert.deepStrictEqual([afterLeases.get(a.workspace.id), afterLeases.get(b.workspace.id)], [4, 2])
      }).pipe(provide))

    it.effect("a webhook at its limit offers nothing; without limits a claim takes what is due", () =>
      Effect.gen(function*() {
        yield* drainQueue
        const a = yield* makeWorkspace()
        yield* addWebhook(a.workspace.id, ["*"])
        let last = yield* recordOne().pipe(as(a.principal))
        for (let i = 0; i < 9; i++) last = yield* recordOne().pipe(as(a.principal))
        const now = DateTime.add(last.occurred_at, { seconds: 1 })
        assert.strictEqual((yield* claim(now, { limit: 10, perWebhook: 3 })).length, 3)
        assert.strictEqual((yield* claim(now, { limit: 10, perWebhook: 3 }, "other")).length, 0)
        assert.strictEqual((yield* claim(now, { limit: 10 }, "other")).length, 7)
      }).pipe(provide))

    it.effect("concurrent creates never pass the webhook limit; deleting one frees a place (D50)", () =>
      Effect.gen(function*() {
        const { principal, workspace } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const results = yield* Effect.forEach(
          Array.from({ length: 12 }, () => new CreateWebhook({ url: "https://hooks.example.com/in", events: ["*"] })),
          (input) => Effect.result(webhooks.create(input)),
          { concurrency: "unbounded" }
        ).pipe(as(principal))
        const created = results.filter((r) => r._tag === "Success")
        const refused = results.flatMap((r) => r._tag === "Failure" ? [r.failure] : [])
        assert.strictEqual(created.length, 5)
        assert.strictEqual(refused.length, 7)
        for (const error of refused) {
          assert.instanceOf(error, BusinessStateError)
          assert.include(error.message, "at most 5 webhooks")
          assert.include(error.message, "SUPPORT_WEBHOOK_MAX_PER_WORKSPACE")
        }
        const repo = yield* WebhookRepo
        const listed = yield* repo.list(workspace.id, { limit: 100, offset: 0 })
        assert.strictEqual(listed.items.length, 5)
        assert.strictEqual(listed.total, 5)

        yield* webhooks.delete(created[0]!.success.id).pipe(as(principal))
        yield* webhooks.create(new CreateWebhook({ url: "https://hooks.example.com/in", events: ["*"] })).pipe(
          as(principal)
        )
        const again = yield* Effect.flip(
          webhooks.create(new CreateWebhook({ url: "https://hooks.example.com/in", events: ["*"] }))
        ).pipe(as(principal))
        assert.strictEqual(again._tag, "BusinessStateError")
      }).pipe(
        // A memo map of its own (v4 shares one between provides): the engine's `Webhooks` is built already.
        Effect.provide(
          Webhooks.layerWithoutDependencies.pipe(
            Layer.provide(Layer.merge(WebhookConfig.layer({ maxPerWorkspace: 5 }), PublicResolver))
          ),
          { local: true }
        ),
        provide
      ))

    it("delivery ids of consecutive fan-outs never meet: the prefix keeps the bits a generator increments", () => {
      const bases = [
        "01a1fea5-8a3b-78c7-a531-bf2d56a0d95a",
        "01a1fea5-8a3b-78c7-a531-bf2d56a0d95b",
        "01a1fea5-8a3b-78c7-a531-bf2d56a0da00",
        "01a1fea5-8a3b-78c7-a532-000000000000"
      ]
      const prefixes = bases.map(deliveryIdPrefix)
      assert.strictEqual(new Set(prefixes).size, bases.length)
      for (const prefix of prefixes) {
        assert.match(
          `${prefix}0001`,
          /^01a1fea5-8a3b-7[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/
        )
      }
    })
  })
