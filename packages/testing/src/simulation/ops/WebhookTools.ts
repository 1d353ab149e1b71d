/**
 * The webhook operations that act on deliveries: a ping (a `webhook.ping` to one webhook alone, outside the event log,
 * signed and retried like any delivery), a redelivery (the same delivery id, a fresh budget of attempts, due now) and a
 * recovery (every delivery of the webhook that failed or was cancelled since a time, due now). Each valid one tells the
 * delivery oracle (invariants/Deliveries.ts) what is due, so that the attempts are checked like the others: made at the
 * times the retry schedule gives, signed with the current secret, and ended by the rules. Refused: a recovery whose
 * `until` is not after `since` (422), a delivery of another webhook (404), and every one of them on another workspace's
 * webhook (404), each changing nothing.
 *
 * On a deactivated webhook each is paused until `enable`, and the oracle holds it until then. They act only
 * on webhooks with no attempt in flight: an attempt in flight when its delivery is queued again is dropped by the
 * engine, which the oracle does not model. The model is up to date when a step starts, on PostgreSQL too: `settle`
 * waits for every query of the engine (PgTraffic.ts).
 */
import {
  DeliveryId,
  type DeliveryStatus,
  ListWebhookDeliveries,
  RecoverWebhook,
  type WebhookDelivery,
  Webhooks
} from "@support-engine/core"
import { Clock, DateTime, Effect } from "effect"
import { broken, ensure } from "../Failure.js"
import type { HookModel, Space } from "../Model.js"
import type { Rng } from "../Rng.js"
import { type AnyCall, type Op, otherSpace, refused, type Sim, valid } from "./Op.js"

/** Every delivery of `hook` in `status`, all pages. */
const deliveriesIn = (sim: Sim, space: Space, hook: HookModel, status: DeliveryStatus) =>
  Effect.gen(function*() {
    const rows: Array<WebhookDelivery> = []
    for (let page = 1;; page++) {
      const found = yield* valid(
        sim,
        space,
        "webhook deliveries",
        Effect.flatMap(
          Webhooks,
          (w) => w.deliveries(hook.id, new ListWebhookDeliveries({ status, per_page: 100, page }))
        )
      )
      rows.push(...found.data)
      if (found.data.length < 100) return rows
    }
  })

const ping = (sim: Sim, space: Space, hook: HookModel, now: number) =>
  Effect.gen(function*() {
    const delivery = yield* valid(sim, space, "webhook ping", Effect.flatMap(Webhooks, (w) => w.ping(hook.id)))
    yield* ensure(
      delivery.event === "webhook.ping" && delivery.status === "pending" && delivery.webhook_id === hook.id,
      "a ping queues one webhook.ping delivery to its webhook",
      () => JSON.stringify(delivery)
    )
    sim.deliveries.expect(hook, delivery.event_id, delivery.event, delivery.id, now)
    return `ping ${hook.id} ${delivery.id}`
  })

const redeliver = (sim: Sim, space: Space, hook: HookModel, rng: Rng, now: number) =>
  Effect.gen(function*() {
    const known = sim.deliveries.of(hook).filter((d) => d.id !== undefined)
    if (known.length === 0) return undefined
    const target = yield* rng.pick(known)
    const id = DeliveryId.make(target.id!)
    const delivery = yield* valid(
      sim,
      space,
      "webhook redeliver",
      Effect.flatMap(Webhooks, (w) => w.redeliver(hook.id, id))
    )
    yield* ensure(
      delivery.id === id && delivery.status === "pending",
      "a redelivered delivery keeps its id and is pending again",
      () => JSON.stringify(delivery)
    )
    if (!sim.deliveries.requeue(hook, target.eventId, id, now)) {
      return yield* broken("a redelivery is of a delivery the oracle knows", id)
    }
    return `redeliver ${hook.id} ${id} was ${target.state}`
  })

const recover = (sim: Sim, space: Space, hook: HookModel, rng: Rng, now: number) =>
  Effect.gen(function*() {
    // The whole history, or the last hour or day of it.
    const back = yield* rng.pick([undefined, 3_600_000, 86_400_000])
    const since = back === undefined ? 0 : Math.max(0, now - back)
    const candidates = [
      ...(yield* deliveriesIn(sim, space, hook, "failed")),
      ...(yield* deliveriesIn(sim, space, hook, "cancelled"))
    ].filter((d) => d.created_at.epochMilliseconds >= since)
    const recovery = yield* valid(
      sim,
      space,
      "webhook recover",
      Effect.flatMap(Webhooks, (w) => w.recover(hook.id, new RecoverWebhook({ since: DateTime.makeUnsafe(since) })))
    )
    const detail = () => `${hook.url}: recovered ${recovery.recovered}, failed or cancelled ${candidates.length}`
    yield* ensure(
      recovery.recovered === candidates.length,
      "a recovery queues every delivery that failed or was cancelled in its range, and no other",
      detail
    )
    if (back === undefined) {
      // Every delivery the oracle saw fail its last attempt must be among them.
      const ids = new Set(candidates.map((d) => `${d.event_id}`))
      const missed = sim.deliveries.of(hook).filter((d) => d.state === "failed" && !ids.has(d.eventId))
      yield* ensure(
        missed.length === 0,
        "a recovery of the whole history queues every failed delivery",
        () => `${detail()}; not queued: ${missed.map((d) => d.eventId).join(", ")}`
      )
    }
    for (const d of candidates) {
      if (!sim.deliveries.requeue(hook, d.event_id, d.id, now)) {
        return yield* broken("the engine holds only deliveries of committed events and pings", `${d.id} ${d.event}`)
      }
    }
    return `recover ${hook.id} since ${since} ${recovery.recovered}`
  })

const invalid = (sim: Sim, space: Space, hook: HookModel, rng: Rng, now: number) =>
  Effect.gen(function*() {
    const probe = { owner: space, read: Effect.flatMap(Webhooks, (w) => w.get(hook.id)) }
    const choice = yield* rng.int(0, 3)
    if (choice === 0) {
      const at = DateTime.makeUnsafe(now)
      return yield* refused(
        sim,
        space,
        "recover until not after since",
        "ValidationError",
        Effect.flatMap(Webhooks, (w) => w.recover(hook.id, new RecoverWebhook({ since: at, until: at }))),
        probe
      )
    }
    if (choice === 1) {
      // A delivery of another of the workspace's webhooks, named under this one.
      const sibling = space.hooks.find((h) => h !== hook && sim.deliveries.of(h).some((d) => d.id !== undefined))
      if (sibling === undefined) return undefined
      const id = DeliveryId.make(sim.deliveries.of(sibling).find((d) => d.id !== undefined)!.id!)
      return yield* refused(
        sim,
        space,
        "redeliver a delivery of another webhook",
        "NotFound",
        Effect.flatMap(Webhooks, (w) => w.redeliver(hook.id, id)),
        { owner: space, read: Effect.flatMap(Webhooks, (w) => w.deliveries(sibling.id, new ListWebhookDeliveries({}))) }
      )
    }
    const other = otherSpace(sim, space, (s) => s.hooks)
    if (other === undefined) return undefined
    const foreign = yield* rng.pick(other.hooks)
    const known = sim.deliveries.of(foreign).find((d) => d.id !== undefined)
    const calls: ReadonlyArray<readonly [string, AnyCall]> = [
      ["ping", Effect.flatMap(Webhooks, (w) => w.ping(foreign.id))],
      [
        "recover",
        Effect.flatMap(Webhooks, (w) => w.recover(foreign.id, new RecoverWebhook({ since: DateTime.makeUnsafe(0) })))
      ],
      ...(known === undefined ? [] : [
        [
          "redeliver",
          Effect.flatMap(Webhooks, (w) => w.redeliver(foreign.id, DeliveryId.make(known.id!)))
        ] as const
      ])
    ]
    const [verb, call] = yield* rng.pick(calls)
    return yield* refused(sim, space, `cross-workspace webhook ${verb}`, "NotFound", call, {
      owner: other,
      read: Effect.flatMap(Webhooks, (w) => w.deliveries(foreign.id, new ListWebhookDeliveries({})))
    })
  })

export const webhookTools: Op = {
  name: "webhook tools",
  weight: 4,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      if (space.hooks.length === 0) return undefined
      const choice = yield* rng.int(0, 8)
      // A recovery mostly of a webhook with something to recover: deliveries that failed or were cancelled.
      const failing = space.hooks.filter((h) => sim.deliveries.of(h).some((d) => d.state === "failed" || d.cancelled))
      const hook = yield* rng.pick(choice >= 4 && choice <= 5 && failing.length > 0 ? failing : space.hooks)
      const now = yield* Clock.currentTimeMillis
      if (choice >= 6) return yield* invalid(sim, space, hook, rng, now)
      if (sim.deliveries.busy(hook, now)) return undefined
      if (choice <= 1) return yield* ping(sim, space, hook, now)
      if (choice <= 3) return yield* redeliver(sim, space, hook, rng, now)
      return yield* recover(sim, space, hook, rng, now)
    })
}
