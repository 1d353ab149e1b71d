/**
 * Recording events in the caller's transaction and reading the event log. Recording an event also
 * enqueues it for its webhook deliveries, in the same transaction; the dispatcher makes them.
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import { NotFound, type PersistenceError, ValidationError } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { EventId } from "../shared/Ids.js"
import * as Model from "../shared/Model.js"
import { immutableKey, makePage, PageRequest, planList } from "../shared/Pagination.js"
import { accessTo, Principal } from "../shared/Principal.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { DeliveryQueue } from "../webhooks/DeliveryQueue.js"
import { Event, type EventData, EventType } from "./Event.js"
import { Outbox } from "./Outbox.js"

/** Every operation here acts on events: their abilities, or the broad ones, allow it. */
const { canRead } = accessTo("events")

/** `GET /events` query, typed. `after` switches to oldest-first incremental sync. */
export class ListEvents extends Model.Class<ListEvents>("ListEvents")({
  ...PageRequest.fields,
  event: Schema.optionalKey(EventType),
  after: Schema.optionalKey(EventId)
}) {}

export class Events extends Context.Service<Events>()("@support-engine/core/Events", {
  make: Effect.gen(function*() {
    const outbox = yield* Outbox
    const deliveries = yield* DeliveryQueue
    const ids = yield* IdGenerator

    /**
     * Appends one event, attributed to the current principal's actor, to the outbox, and enqueues it for delivery
     * to the workspace's subscribed webhooks. Callers run it inside their change's transaction.
     */
    const record = Tracing.fn("Events.record")(
      function*(event: EventType, data: EventData): Effect.fn.Return<Event, PersistenceError, Principal> {
        const principal = yield* Principal
        const recorded = new Event({
          id: EventId.make(yield* ids.uuid),
          event,
          occurred_at: yield* now,
          actor: principal.actor,
          data
        })
        yield* outbox.append(principal.workspaceId, recorded)
        yield* deliveries.enqueue(principal.workspaceId, recorded)
        return recorded
      }
    )

    const list = Tracing.fn("Events.list")(function*(query: ListEvents) {
      const principal = yield* canRead
      const filter = { event: query.event }
      if (query.after !== undefined) {
        if (query.cursor !== undefined || query.updated_since !== undefined || query.page !== undefined) {
          return yield* ValidationError.field(
            "after",
            "The after field cannot be combined with page, cursor or updated_since."
          )
        }
        const anchor = yield* outbox.findById(principal.workspaceId, query.after)
        // An id retention deleted still anchors the read: the client resumes from where its last sync ended.
        if (Option.isNone(anchor) && !(yield* outbox.wasPruned(principal.workspaceId, query.after))) {
          return yield* new NotFound({ resource: "Event" })
        }
        const items = yield* outbox.listAfter(principal.workspaceId, query.after, filter, query.per_page)
        return makePage(items, items.length, new PageRequest({ page: 1, per_page: query.per_page }))
      }
      const plan = yield* planList(query)
      const { items, total } = yield* outbox.list(principal.workspaceId, filter, plan.slice)
      return plan.page(items, total, immutableKey("occurred_at"))
    })

    return { record, list } as const
  })
}) {
  /** Needs `Outbox`, `DeliveryQueue` and `IdGenerator`. */
  static readonly layer = Layer.effect(this, this.make)
}

/** Encodes a model to the JSON the API returns, for event data. */
export const encodeData = <A, I extends EventData>(schema: Schema.Codec<A, I>, value: A): EventData =>
  Schema.encodeSync(schema)(value)
