/**
 * Erasure: once a customer is erased, nothing read afterwards holds their data. Every event read from the log
 * after it names neither the customer nor one of their conversations (those recorded before were redacted, and
 * nothing of theirs can be recorded after; `customer.erased` names the customer and nothing else); no webhook
 * request that starts after it carries them (an attempt already under way may); and the API finds neither them nor
 * their conversations and messages, nor an event that names them in the workspace's whole log, right after the
 * erasure and again at the end of the run.
 */
import {
  Conversations,
  CustomerExports,
  Customers,
  type Event,
  Events,
  ListConversations,
  ListCustomers,
  ListEvents,
  ListMessages,
  Messages
} from "@support-engine/core"
import { Effect, Result } from "effect"
import type { ReceivedRequest } from "../../RecordingReceiver.js"
import { broken, ensure } from "../Failure.js"
import type { Erasure, Space, World } from "../Model.js"
import { type AnyCall, asPrincipal, type Sim } from "../ops/Op.js"

const INVARIANT = "no read after an erasure returns the customer's data"

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g

/** The first id in `text` erased before `before` (epoch ms; any erasure when omitted). */
const erasedIn = (world: World, text: string, before = Number.POSITIVE_INFINITY) => {
  for (const [id] of text.matchAll(UUID)) {
    const at = world.erased.get(id)
    if (at !== undefined && at < before) return id
  }
  return undefined
}

export const checkErasedEvent = (world: World, event: Event): Effect.Effect<void> => {
  if (world.erased.size === 0) return Effect.void
  if (event.event === "customer.erased") {
    const id = String(event.data["id"])
    return ensure(
      world.erased.has(id) && Object.keys(event.data).length === 1,
      "customer.erased names the erased customer and nothing else",
      () => JSON.stringify(event.data)
    )
  }
  const id = erasedIn(world, JSON.stringify(event.data))
  return ensure(id === undefined, INVARIANT, () => `event ${event.event} ${event.id} names ${id}`)
}

export const checkErasedRequest = (world: World, request: ReceivedRequest): Effect.Effect<void> => {
  if (world.erased.size === 0) return Effect.void
  const body = JSON.parse(request.body) as { readonly event?: unknown; readonly data?: unknown }
  if (body.event === "customer.erased") return Effect.void
  const id = erasedIn(world, JSON.stringify(body.data ?? null), request.at)
  return ensure(id === undefined, INVARIANT, () => `request to ${request.url} at ${request.at} names ${id}`)
}

/** The reads of the API that must find nothing of an erased customer. */
export const readsAfterErasure = (sim: Sim, erasure: Erasure) =>
  Effect.gen(function*() {
    const space = sim.world.spaces[erasure.space]!
    const run = (call: AnyCall) => sim.engine.run(asPrincipal(space.principal)(call)).pipe(Effect.result)
    const missing = (what: string, call: AnyCall) =>
      Effect.flatMap(run(call), (outcome) =>
        Result.isFailure(outcome) && outcome.failure._tag === "NotFound"
          ? Effect.void
          : broken(INVARIANT, `${what}: ${Result.isSuccess(outcome) ? "found" : outcome.failure._tag}`))
    const none = (what: string, call: AnyCall, id?: string) =>
      Effect.flatMap(run(call), (outcome) => {
        if (Result.isFailure(outcome)) return broken(`${what} can be read`, outcome.failure._tag)
        const rows = (outcome.success as { readonly data: ReadonlyArray<{ readonly id: string }> }).data
        const found = id === undefined ? rows : rows.filter((row) => row.id === id)
        return ensure(found.length === 0, INVARIANT, () => `${what}: ${found.map((r) => r.id).join(", ")}`)
      })
    const customer = erasure.customer
    yield* missing(`customer ${customer}`, Effect.flatMap(Customers, (c) => c.get(customer)))
    yield* missing(`export of ${customer}`, Effect.flatMap(CustomerExports, (e) => e.export(customer)))
    yield* none(
      `conversations of ${customer}`,
      Effect.flatMap(Conversations, (c) => c.list(new ListConversations({ customer_id: customer })))
    )
    if (erasure.email !== null) {
      const email = erasure.email
      yield* none(
        `customers by email ${email}`,
        Effect.flatMap(Customers, (c) => c.list(new ListCustomers({ email }))),
        customer
      )
      yield* none(
        `customers searched for ${email}`,
        Effect.flatMap(Customers, (c) => c.list(new ListCustomers({ q: email }))),
        customer
      )
    }
    for (const id of erasure.conversations) {
      yield* missing(`conversation ${id}`, Effect.flatMap(Conversations, (c) => c.get(id)))
      yield* none(
        `messages of ${id}`,
        Effect.flatMap(Messages, (m) => m.list(new ListMessages({ conversation_id: id })))
      )
    }
  })

/**
 * The workspace's whole event log read again (newest first, page by page): no event names an erased customer of it
 * or one of their conversations, whenever it was recorded.
 */
export const rereadLog = (sim: Sim, space: Space) =>
  Effect.gen(function*() {
    for (let page = 1;; page++) {
      const events = yield* sim.engine.run(
        asPrincipal(space.principal)(Effect.flatMap(Events, (e) => e.list(new ListEvents({ page, per_page: 100 }))))
      ).pipe(Effect.catch((e) => broken("the event log can be read", e._tag)))
      for (const event of events.data) yield* checkErasedEvent(sim.world, event)
      if (events.data.length < 100) return
    }
  })

/** The final look: every erasure of the run read again, and the log of every workspace that had one. */
export const checkErasures = (sim: Sim) =>
  Effect.gen(function*() {
    for (const erasure of sim.world.erasures) yield* readsAfterErasure(sim, erasure)
    const spaces = new Set(sim.world.erasures.map((e) => e.space))
    for (const index of spaces) yield* rereadLog(sim, sim.world.spaces[index]!)
  })
