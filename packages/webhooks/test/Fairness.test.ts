/**
 * Fair delivery (issue 16 item 2): a workspace whose 20 webhooks point at a receiver that never answers holds at most
 * its share of the dispatcher's slots, and another workspace's deliveries still arrive at once. Real receivers on
 * 127.0.0.1 and the real undici transport; the TestClock stands still, so the silent receiver's attempts never time
 * out and every slot they take stays taken for the whole test.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  type ClaimedDelivery,
  CreateWebhook,
  ListWebhookDeliveries,
  Webhooks,
  type WebhookSettings
} from "@support-engine/core"
import { Effect } from "effect"
import { as, eventually, makeWorkspace, realTransport, record, withProbedDispatcher } from "./Harness.js"
import { startReceiver } from "./TestReceiver.js"

const createAs = (url: string) => Effect.flatMap(Webhooks, (w) => w.create(new CreateWebhook({ url, events: ["*"] })))

describe("Fair delivery (issue 16)", () => {
  it.effect("A's 20 silent webhooks hold at most A's share of the slots; B's deliveries arrive at once", () =>
    Effect.gen(function*() {
      const silent = yield* startReceiver(() => "hang")
      const fast = yield* startReceiver(() => ({ status: 200, body: "ok" }))
      // The defaults (64 attempts per process, 32 per workspace, 16 per webhook), with loopback targets allowed.
      const settings: Partial<WebhookSettings> = { allowPrivate: true }
      const { layer, probe } = withProbedDispatcher(realTransport(settings), settings)
      yield* Effect.gen(function*() {
        const a = yield* makeWorkspace("A")
        const b = yield* makeWorkspace("B")
        for (let i = 0; i < 20; i++) yield* createAs(silent.url(`/a/${i}`)).pipe(as(a.principal))
        const bHook = yield* createAs(fast.url("/b")).pipe(as(b.principal))
        const deliveriesOfB = Effect.flatMap(
          Webhooks,
          (w) => w.deliveries(bHook.id, new ListWebhookDeliveries({}))
        ).pipe(as(b.principal))

        // 5 events of A: 100 deliveries due before any of B's, more than the dispatcher's 64 slots.
        for (let i = 0; i < 5; i++) yield* record("agent.deleted", { id: `a${i}` }).pipe(as(a.principal))
        yield* eventually(Effect.sync(() => silent.all.length >= 32), "A to reach its workspace limit")
        for (let i = 0; i < 5; i++) yield* record("agent.deleted", { id: `b${i}` }).pipe(as(b.principal))
        yield* eventually(Effect.sync(() => fast.all.length >= 5), "B's five deliveries")
        const ofB = (d: ClaimedDelivery) => d.workspaceId === b.workspace.id
        const recordsOfB = () => probe.records.filter((r) => r.completed.some(ofB))
        yield* eventually(
          Effect.sync(() => recordsOfB().flatMap((r) => r.completed.filter(ofB)).length === 5),
          "B's five attempts recorded"
        )
        // Nothing changes the queue after B's last record (no writes, A's receiver never answers, the clock stands
        // still), so a claim made after it gets what every later claim would: once one has been made (the record
        // wakes the dispatcher to make it), and every attempt claimed has reached its receiver, what the receivers
        // got is all they will ever get.
        const lastRecord = Math.max(...recordsOfB().map((r) => r.endedAt))
        yield* eventually(
          Effect.sync(() => probe.claims.some((c) => c.startedAt > lastRecord)),
          "a claim after B's last record"
        )
        const claimed = () => [...probe.claims, ...probe.records].reduce((n, c) => n + c.claimed.length, 0)
        yield* eventually(
          Effect.sync(() => silent.all.length + fast.all.length === claimed()),
          "every attempt claimed to reach its receiver"
        )

        assert.strictEqual(silent.all.length, 32, "A has exactly its workspace limit in flight, no more")
        const perWebhook = new Map<string, number>()
        for (const hit of silent.all) perWebhook.set(hit.path, (perWebhook.get(hit.path) ?? 0) + 1)
        assert.strictEqual(perWebhook.size, 20, "round-robin: every one of A's webhooks got a turn")
        assert.isAtMost(Math.max(...perWebhook.values()), 2, "and none a second before all had a first")
        assert.strictEqual(fast.all.length, 5, "each of B's deliveries once")
        const bDeliveries = yield* deliveriesOfB
        assert.deepStrictEqual(bDeliveries.data.map((d) => [d.status, d.attempts]), [
          ["delivered", 1],
          ["delivered", 1],
          ["delivered", 1],
          ["delivered", 1],
          ["delivered", 1]
        ])
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a workspace at its limit: its further writes make the dispatcher look for no work", () =>
    Effect.gen(function*() {
      const silent = yield* startReceiver(() => "hang")
      // B's receiver never answers either: no attempt ends, so nothing but a commit can make the dispatcher claim.
      const other = yield* startReceiver(() => "hang")
      const settings: Partial<WebhookSettings> = { allowPrivate: true }
      // The real queue, with what the dispatcher asks the database for recorded.
      const { layer, probe } = withProbedDispatcher(realTransport(settings), settings)
      yield* Effect.gen(function*() {
        const a = yield* makeWorkspace("A")
        const b = yield* makeWorkspace("B")
        for (let i = 0; i < 20; i++) yield* createAs(silent.url(`/a/${i}`)).pipe(as(a.principal))
        yield* createAs(other.url("/b")).pipe(as(b.principal))
        for (let i = 0; i < 2; i++) yield* record("agent.deleted", { id: `a${i}` }).pipe(as(a.principal))
        yield* eventually(Effect.sync(() => silent.all.length >= 32), "A to reach its workspace limit")

        const since = probe.mark()
        for (let i = 0; i < 10; i++) yield* record("agent.deleted", { id: `more ${i}` }).pipe(as(a.principal))
        // The dispatcher has woken for A's commits and asked which workspaces they touched (the last few may still
        // be waiting, and be seen with B's).
        yield* eventually(Effect.sync(() => probe.looks.some((l) => l.startedAt > since)), "a look at A's commits")
        const claimsSince = () => probe.claims.filter((c) => c.startedAt > since)

        yield* record("agent.deleted", { id: "b" }).pipe(as(b.principal))
        yield* eventually(Effect.sync(() => other.all.length === 1), "B's delivery")
        // B's attempt is in flight and never ends: the claim that took it is the last one.
        assert.deepStrictEqual(
          claimsSince().map((c) => c.claimed.map((d) => d.workspaceId)),
          [[b.workspace.id]],
          "ten commits of a workspace at its limit: no claim; another workspace's commit: one, at once"
        )
        assert.strictEqual(silent.all.length, 32)
      }).pipe(Effect.provide(layer))
    }))
})
