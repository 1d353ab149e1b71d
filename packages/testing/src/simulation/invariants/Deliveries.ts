/**
 * The delivery oracle. Every committed event (read back from the event log, in commit order) must reach every webhook
 * of its workspace that was active and subscribed when it committed: one delivery, one id on every attempt, the first
 * attempt when the event committed, attempt n+1 exactly `base · 2^(n-1)` after attempt n ended, at most ten, and none
 * after a 2xx, a 410, the tenth failure, or the webhook's deactivation or deletion. An attempt cut off by a crash is
 * due again when its lease ends (timeout plus margin), and work due while the engine was down is done when it is up
 * again. Nothing else may arrive: no delivery of an event that did not commit, nor to a webhook that was inactive or
 * not subscribed then.
 *
 * Events of one instant are taken together: their ids need not follow their commit order (IdStreams.ts), and on
 * PostgreSQL the commits of the engine's fibers at one instant come in any order. An event of the instant a webhook
 * was deactivated may have committed before the deactivation or after it, so its delivery to that webhook may be
 * made or not: it is expected as one cancelled at that instant, whichever side of the deactivation the log shows it.
 *
 * Deactivations are checked against the receiver's answers: a webhook is deactivated at the instant an attempt of
 * it answered 410, or at the instant its fifth consecutive delivery failed, and at no other. Outcomes at the
 * same instant may be recorded in any order, so the failure count is kept as a range [lo, hi]: a deactivation is
 * allowed when some order reaches the limit, and required when every order does.
 */
import type { Event } from "@support-engine/core"
import { Effect } from "effect"
import type { ReceivedRequest } from "../../RecordingReceiver.js"
import { broken, ensure } from "../Failure.js"
import type { HookModel, Space, World } from "../Model.js"
import { lowerBound } from "../Search.js"

export interface DeliverySettings {
  readonly retryBase: number
  readonly timeout: number
  /** A claim's lease: the timeout plus the margin. */
  readonly lease: number
  readonly maxAttempts: number
  readonly deactivateAfter: number
  /**
   * How late an attempt may be, in ms of simulated time. The simulator passes 0 (the timetable exact) on SQLite and
   * PostgreSQL alike. Above 0, attempts are checked never to come early and every delivery to end by its rules by
   * the end of the run, but not their exact times, nor that a webhook is deactivated at the very instant its fifth
   * failure or its 410 is recorded: for a harness whose clock may move while the engine still waits on a query.
   */
  readonly lateBy: number
}

interface Delivery {
  readonly hook: HookModel
  readonly event: string
  readonly eventId: string
  /** When it was queued: the event's commit, or the ping (a recovery selects by it). */
  readonly createdAt: number
  id: string | undefined
  /** Failed attempts so far. */
  round: number
  /** When the next attempt is due, before downtime moves it; infinite while paused until `enable`. */
  due: number
  state: "pending" | "delivered" | "failed" | "gone"
  /** When the webhook was deactivated or deleted with this delivery still pending. */
  cancelledAt: number | undefined
}

type Entry =
  | { readonly at: number; readonly kind: "success" | "failure" | "gone" | "enabled" }
  | { readonly at: number; readonly kind: "deactivated"; readonly reason: string }

interface Ledger {
  readonly entries: Array<Entry>
  active: boolean
  lo: number
  hi: number
}

/** What an operation may know of a delivery: its event, its id once an attempt showed it, and its state. */
export interface DeliveryView {
  readonly eventId: string
  readonly id: string | undefined
  readonly state: "pending" | "delivered" | "failed" | "gone"
  /** Still pending when its webhook was deactivated or deleted. */
  readonly cancelled: boolean
  readonly createdAt: number
}

export interface DeliveryOracle {
  readonly onEvent: (space: Space, event: Event) => Effect.Effect<void>
  readonly onRequest: (request: ReceivedRequest) => Effect.Effect<void>
  readonly enabled: (hook: HookModel, at: number) => void
  readonly deleted: (hook: HookModel, at: number) => void
  /**
   * A delivery of an event outside the log, to this webhook alone (a ping), due at `at`, or paused until the
   * webhook is enabled when it is inactive.
   */
  readonly expect: (hook: HookModel, eventId: string, eventType: string, deliveryId: string, at: number) => void
  /**
   * A delivery queued again (redeliver, recover): a fresh budget of attempts, the same id, due at `at`
   * (paused until `enable` when the webhook is inactive). False when the oracle knows no such delivery.
   */
  readonly requeue: (hook: HookModel, eventId: string, deliveryId: string, at: number) => boolean
  /**
   * Events redacted by an erasure at `at`: their deliveries still pending are cancelled then, and those of
   * them not read from the log yet are expected as cancelled at that instant (never made, or made and cancelled).
   */
  readonly erased: (eventIds: ReadonlyArray<string>, at: number) => void
  /** Whether an attempt of this webhook may be in flight at `now` (one due and not yet answered). */
  readonly busy: (hook: HookModel, now: number) => boolean
  /** The webhook's deliveries as the oracle knows them. */
  readonly of: (hook: HookModel) => ReadonlyArray<DeliveryView>
  /** After each step (`now`): due attempts made, deactivations justified; at the end nothing may be left pending. */
  readonly check: (now: number, final: boolean) => Effect.Effect<void>
}

const header = (request: ReceivedRequest, name: string) => request.headers[name] ?? request.headers[name.toLowerCase()]

/** The due time of a delivery queued while its webhook is inactive: none until `enable`. */
const PAUSED = Number.POSITIVE_INFINITY

const ORDER: Record<Entry["kind"], number> = { enabled: 0, success: 1, failure: 1, gone: 1, deactivated: 2 }

export const makeDeliveryOracle = (world: World, settings: DeliverySettings): DeliveryOracle => {
  const deliveries = new Map<string, Delivery>()
  const pending = new Set<Delivery>()
  const ids = new Map<string, Delivery>()
  const ledgers = new Map<string, Ledger>()
  /** When each webhook was last deactivated, for the events of that instant. */
  const deactivatedAt = new Map<string, number>()
  /** When each redacted event was redacted. */
  const erasedAt = new Map<string, number>()

  const ledgerOf = (hook: HookModel) => {
    let ledger = ledgers.get(hook.id)
    if (ledger === undefined) {
      ledger = { entries: [], active: true, lo: 0, hi: 0 }
      ledgers.set(hook.id, ledger)
    }
    return ledger
  }

  /** When work due at `due` is done: at once, or when the engine is up again if it was down then. */
  const adjust = (due: number) => {
    // Downtimes come in time order and never overlap (a crash is a step, and the clock is past the last one's end):
    // only the last one that began before `due` can hold it. A search, as this runs for every pending delivery
    // after every step.
    const downs = world.downtimes
    const down = downs[lowerBound(downs, (d) => d.from < due) - 1]
    return down !== undefined && due < down.to ? down.to : due
  }

  const cancel = (hook: HookModel, at: number) => {
    for (const d of pending) if (d.hook === hook && d.cancelledAt === undefined) d.cancelledAt = at
  }

  const onEvent = (space: Space, event: Event) =>
    Effect.gen(function*() {
      const at = event.occurred_at.epochMilliseconds
      if (event.event === "webhook.deactivated") {
        const id = event.data["webhook_id"]
        const hook = space.hooks.find((h) => h.id === id)
        if (hook === undefined || !hook.active) {
          return yield* broken("a webhook is deactivated only while it is active", `${String(id)} at ${at}`)
        }
        hook.active = false
        deactivatedAt.set(hook.id, at)
        ledgerOf(hook).entries.push({ at, kind: "deactivated", reason: String(event.data["reason"]) })
        cancel(hook, at)
      }
      for (const hook of space.hooks) {
        if (!(hook.events.includes("*") || hook.events.includes(event.event))) continue
        // Deactivated at this very instant: the event may have committed first (see above).
        const sameInstant = !hook.active && deactivatedAt.get(hook.id) === at
        if (!hook.active && !sameInstant) continue
        const delivery: Delivery = {
          hook,
          event: event.event,
          eventId: event.id,
          createdAt: at,
          id: undefined,
          round: 0,
          due: at,
          state: "pending",
          cancelledAt: sameInstant ? at : erasedAt.get(event.id)
        }
        deliveries.set(`${event.id}|${hook.id}`, delivery)
        pending.add(delivery)
      }
    })

  const onRequest = (request: ReceivedRequest) =>
    Effect.gen(function*() {
      const hook = world.hooksByUrl.get(request.url)
      const eventId = header(request, "X-Service-Event-Id")
      const deliveryId = header(request, "X-Service-Delivery")
      const delivery = hook === undefined ? undefined : deliveries.get(`${eventId}|${hook.id}`)
      const what = `${request.url} event ${eventId} delivery ${deliveryId} at ${request.at}`
      if (delivery === undefined) {
        return yield* broken(
          "nothing is delivered but committed events to webhooks active and subscribed when they committed",
          what
        )
      }
      if (delivery.id === undefined && deliveryId !== undefined) {
        yield* ensure(!ids.has(deliveryId), "every delivery has an id of its own", () => what)
        delivery.id = deliveryId
        ids.set(deliveryId, delivery)
      }
      yield* ensure(delivery.id === deliveryId, "a delivery keeps its id on every attempt", () => what)
      yield* ensure(
        delivery.state === "pending",
        "no attempt after a delivery ended (2xx, 410 or its last attempt)",
        () => `${what}: ${delivery.state}`
      )
      yield* ensure(
        delivery.cancelledAt === undefined || request.at <= delivery.cancelledAt,
        "no attempt after its webhook was deactivated or deleted",
        () => `${what}: cancelled at ${delivery.cancelledAt}`
      )
      const expected = adjust(delivery.due)
      yield* ensure(
        request.at >= expected && request.at <= expected + settings.lateBy,
        "every attempt is made at the time the retry timetable gives",
        () => `${what}: expected at ${expected} (attempt ${delivery.round + 1})`
      )
      const held = delivery.cancelledAt === undefined || request.finishedAt <= delivery.cancelledAt
      const entries = ledgerOf(delivery.hook).entries
      const answer = request.answer
      if (answer === "interrupted") {
        delivery.due = request.at + settings.lease
      } else if (typeof answer === "number" && answer >= 200 && answer < 300) {
        delivery.state = "delivered"
        if (held) entries.push({ at: request.finishedAt, kind: "success" })
      } else if (answer === 410) {
        delivery.state = "gone"
        if (held) entries.push({ at: request.finishedAt, kind: "gone" })
      } else {
        delivery.round++
        if (delivery.round >= settings.maxAttempts) {
          delivery.state = "failed"
          if (held) entries.push({ at: request.finishedAt, kind: "failure" })
        } else {
          delivery.due = request.finishedAt + settings.retryBase * 2 ** (delivery.round - 1)
        }
      }
      if (delivery.state !== "pending") pending.delete(delivery)
    })

  /** Replays a webhook's outcomes up to `now`, instant by instant, against its deactivations. */
  const evaluate = (hook: HookModel, ledger: Ledger, now: number) =>
    Effect.gen(function*() {
      const due = ledger.entries.filter((e) => e.at <= now).sort((a, b) => a.at - b.at || ORDER[a.kind] - ORDER[b.kind])
      if (due.length === 0) return
      ledger.entries.splice(0, ledger.entries.length, ...ledger.entries.filter((e) => e.at > now))
      let i = 0
      while (i < due.length) {
        const at = due[i]!.at
        const group: Array<Entry> = []
        while (i < due.length && due[i]!.at === at) group.push(due[i++]!)
        if (group.some((e) => e.kind === "enabled")) {
          ledger.active = true
          ledger.lo = 0
          ledger.hi = 0
        }
        const count = (kind: Entry["kind"]) => group.filter((e) => e.kind === kind).length
        const s = count("success")
        const f = count("failure")
        const g = count("gone")
        const deactivation = group.find((e) => e.kind === "deactivated")
        if (!ledger.active) continue
        const detail = () =>
          `${hook.url} at ${at}: ${s} delivered, ${f} failed, ${g} gone, failures before ${ledger.lo}..${ledger.hi}`
        const allowed = f > 0 && ledger.hi + f >= settings.deactivateAfter
        const required = s === 0 && f > 0 && ledger.lo + f >= settings.deactivateAfter
        if (deactivation !== undefined && deactivation.kind === "deactivated") {
          const why = deactivation.reason
          yield* ensure(
            why === "gone" ? g > 0 : allowed,
            "a webhook is deactivated only on a 410 or its fifth consecutive failed delivery",
            () => `${why}: ${detail()}`
          )
          ledger.active = false
          ledger.lo = 0
          ledger.hi = 0
          continue
        }
        yield* ensure(g === 0, "a webhook that answers 410 is deactivated at once", detail)
        yield* ensure(!required, "a webhook is deactivated after five consecutive failed deliveries", detail)
        if (s === 0) {
          ledger.lo += f
          ledger.hi += f
        } else {
          ledger.lo = 0
          ledger.hi = f
        }
      }
    })

  // Plain loops with an effect only to fail: this runs after every step over every pending delivery and every webhook
  // ever made (an effect per item, and a search of every webhook per ledger, were a visible share of a run's CPU).
  const check = (now: number, final: boolean) =>
    Effect.gen(function*() {
      for (const delivery of pending) {
        const at = adjust(delivery.due)
        const cancelled = delivery.cancelledAt
        if (cancelled !== undefined && (at > cancelled || (at === cancelled && at + settings.timeout < now))) {
          pending.delete(delivery)
          continue
        }
        // Paused until its webhook is enabled, which may never come.
        if (at === PAUSED) {
          if (final) pending.delete(delivery)
          continue
        }
        if (!(!final && at + settings.timeout + settings.lateBy >= now)) {
          return yield* broken(
            "every committed event reaches every active subscriber: each attempt is made when due",
            `${delivery.hook.url} ${delivery.event} delivery ${delivery.id ?? "(never sent)"} due at ${at}`
          )
        }
      }
      const hooks = new Map<string, HookModel>()
      for (const hook of world.hooksByUrl.values()) if (!hooks.has(hook.id)) hooks.set(hook.id, hook)
      for (const [id, ledger] of ledgers) {
        const hook = hooks.get(id)
        if (hook === undefined || hook.deleted) {
          ledgers.delete(id)
          continue
        }
        // Nothing recorded: nothing to replay.
        if (settings.lateBy === 0 && ledger.entries.length > 0) yield* evaluate(hook, ledger, now)
      }
    })

  const expect = (hook: HookModel, eventId: string, eventType: string, deliveryId: string, at: number) => {
    const delivery: Delivery = {
      hook,
      event: eventType,
      eventId,
      createdAt: at,
      id: deliveryId,
      round: 0,
      due: hook.active ? at : PAUSED,
      state: "pending",
      cancelledAt: undefined
    }
    deliveries.set(`${eventId}|${hook.id}`, delivery)
    ids.set(deliveryId, delivery)
    pending.add(delivery)
  }

  const requeue = (hook: HookModel, eventId: string, deliveryId: string, at: number) => {
    const delivery = deliveries.get(`${eventId}|${hook.id}`)
    if (delivery === undefined || (delivery.id !== undefined && delivery.id !== deliveryId)) return false
    if (delivery.id === undefined) {
      delivery.id = deliveryId
      ids.set(deliveryId, delivery)
    }
    delivery.state = "pending"
    delivery.round = 0
    delivery.due = hook.active ? at : PAUSED
    delivery.cancelledAt = undefined
    pending.add(delivery)
    return true
  }

  const busy = (hook: HookModel, now: number) => {
    for (const d of pending) if (d.hook === hook && adjust(d.due) <= now) return true
    return false
  }

  const of = (hook: HookModel): ReadonlyArray<DeliveryView> => {
    const views: Array<DeliveryView> = []
    for (const d of deliveries.values()) {
      if (d.hook !== hook) continue
      const cancelled = d.state === "pending" && d.cancelledAt !== undefined
      views.push({ eventId: d.eventId, id: d.id, state: d.state, cancelled, createdAt: d.createdAt })
    }
    return views
  }

  return {
    onEvent,
    onRequest,
    enabled: (hook, at) => {
      ledgerOf(hook).entries.push({ at, kind: "enabled" })
      for (const d of pending) if (d.hook === hook && d.due === PAUSED && d.cancelledAt === undefined) d.due = at
    },
    deleted: (hook, at) => cancel(hook, at),
    erased: (eventIds, at) => {
      // Only these: a delivery of an event redacted before may have been queued again since, and is sent (redacted).
      const now = new Set(eventIds)
      for (const id of eventIds) erasedAt.set(id, at)
      for (const d of pending) if (d.cancelledAt === undefined && now.has(d.eventId)) d.cancelledAt = at
    },
    expect,
    requeue,
    busy,
    of,
    check
  }
}
