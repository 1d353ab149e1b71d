/**
 * The fan-out of events to their webhook deliveries, deferred out of the writing transaction (migration 0027).
 * The event's transaction writes one marker (`pending_fanouts`) when some active webhook of the workspace
 * subscribes to the event; the dispatcher's fan-out step turns the markers of up to `limit` events into
 * deliveries in one transaction, one `INSERT ... SELECT` whatever their number, and deletes them. On SQLite, whose
 * WAL writes every page a commit dirtied, many events share the pages of the per-webhook indexes their deliveries
 * go to, pages the writer's own commit would otherwise write for each event.
 *
 * Which webhooks get an event: those active and subscribed to its type (or `*`) when the event committed, as when
 * the deliveries were made in its transaction. Every change to that set (a webhook created, updated, deleted,
 * enabled, deactivated) first fans out the workspace's pending events in its own transaction (`drain`), so a marker
 * still pending is always fanned out under the subscriptions its event committed with. On PostgreSQL an exclusive
 * per-workspace lock taken by the change and a shared one taken by the marker's writer order the two; SQLite
 * runs one transaction at a time. One exception, PostgreSQL only: a deactivation by the dispatcher skips the markers
 * another dispatcher is fanning out at that instant (`drain(..., "skip")`: it holds rows that dispatcher may wait
 * on). That dispatcher's statement then sees the webhook active (its delivery is made, pending, and cancelled when
 * the webhook is enabled, SqlWebhookRepo.ts) or, if it reads after the deactivation committed, inactive: the event
 * then has no delivery for the deactivated webhook, not even a cancelled one, so `recover` cannot bring it back.
 */
import { afterCommit, type Event, IdGenerator, type WorkspaceId } from "@support-engine/core"
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { params, types } from "../shared/Columns.js"
import { limit as limitClause } from "../shared/Limit.js"
import { DeliverySignal } from "./DeliverySignal.js"
import { persist } from "./WebhookRows.js"

/**
 * The first 28 hex digits (with their dashes) of the delivery ids of one event's fan-out, made from a fresh UUIDv7
 * `base`; the statement appends each subscriber's ordinal as the last 4 hex digits. The prefix keeps the base's time
 * and version and the 56 bits of its last seven bytes, which are the ones `IdGenerator`'s monotonic method
 * increments within a millisecond: two bases never share a prefix, so the ids of two fan-outs never meet. The ids
 * stay UUIDv7: time-ordered, and the same on every attempt.
 */
export const deliveryIdPrefix = (base: string): string => {
  const h = base.replaceAll("-", "")
  // h: time (12), version (1), rand_a (3), variant nibble (1), low nibble of byte 8 (1), bytes 9-15 (14).
  const kept = h.slice(18, 32)
  const digits = h.slice(0, 12) + h[12] + kept.slice(0, 3) + h[16] + kept.slice(3, 14)
  return `${digits.slice(0, 8)}-${digits.slice(8, 12)}-${digits.slice(12, 16)}-${digits.slice(16, 20)}-${
    digits.slice(20, 28)
  }`
}

/**
 * The namespace of the per-workspace advisory lock (PostgreSQL's two-key form, which does not meet the one-key
 * locks of idempotency keys): the migration's number.
 */
const SUBSCRIPTIONS_LOCK = 27

/**
 * Events per statement of a drain: bounds the parameters of one statement (two per event); a drain runs as many
 * as its workspace's backlog needs.
 */
const DRAIN_CHUNK = 500

const Marker = Schema.Struct({ event_id: Schema.String, workspace_id: Schema.String })
const decodeMarkers = Schema.decodeUnknownEffect(Schema.Array(Marker))

/**
 * The workspace's subscriptions lock, shared (PostgreSQL; nothing on SQLite). A subscription change holds it
 * exclusively, then waits for the markers it drains; so a transaction that records events, and so wants this lock,
 * takes it before it holds any of the workspace's pending fan-out markers: before it writes one or deletes one.
 */
export const holdSubscriptionsShared = (sql: SqlClient.SqlClient, workspaceId: WorkspaceId) =>
  sql.onDialectOrElse({
    pg: () => Effect.asVoid(sql`SELECT pg_advisory_xact_lock_shared(${SUBSCRIPTIONS_LOCK}, hashtext(${workspaceId}))`),
    orElse: () => Effect.void
  })

/** How a drain treats markers another transaction holds (PostgreSQL): wait for it, or leave them to it. */
export type DrainLocking = "wait" | "skip"

/**
 * Makes the fan-out's statements. A workspace has at most `MAX_WEBHOOKS_PER_WORKSPACE` webhooks, so 4 hex digits
 * number an event's subscribers.
 */
export const makeFanOut = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const ids = yield* IdGenerator
  const signal = yield* DeliverySignal
  const p = params(sql)
  const id = sql.literal(types(sql).id)
  const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

  const idOf = sql.onDialectOrElse({
    pg: () => sql`CAST(s.prefix || lpad(to_hex(s.n), 4, '0') AS UUID)`,
    orElse: () => sql`s.prefix || printf('%04x', s.n)`
  })

  /**
   * One pending delivery, due at the event's time, per active webhook of the event's workspace subscribed to its
   * type or `*`, for every event of `eventIds`, in one statement. Each event's ids share a fresh prefix.
   */
  const insertDeliveries = (eventIds: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      if (eventIds.length === 0) return
      const rows = yield* Effect.forEach(eventIds, (eventId) =>
        Effect.map(ids.uuid, (base) => sql`(${eventId}, ${deliveryIdPrefix(base)})`))
      yield* sql`WITH b (event_id, prefix) AS (VALUES ${sql.join(", ", false)(rows)}),
        s AS (SELECT b.prefix, e.id AS event_id, e.workspace_id, e.event, e.occurred_at, w.id AS webhook_id,
            ROW_NUMBER() OVER (PARTITION BY e.id ORDER BY w.id) AS n
          FROM b JOIN events e ON e.id = CAST(b.event_id AS ${id})
          JOIN webhooks w ON w.workspace_id = e.workspace_id AND w.is_active = ${p.bool(true)}
          WHERE EXISTS (SELECT 1 FROM webhook_event_types t WHERE t.workspace_id = e.workspace_id
            AND t.event_type IN (e.event, '*') AND t.webhook_id = w.id))
        INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, event, status, attempts,
          round_attempts, next_attempt_at, created_at, updated_at)
        SELECT ${idOf}, s.workspace_id, s.webhook_id, s.event_id, s.event, 'pending', 0, 0, s.occurred_at,
          s.occurred_at, s.occurred_at
        FROM s`
    })

  /** Fans out the events of these markers and deletes the markers, in the caller's transaction. */
  const fanOutMarkers = (rows: ReadonlyArray<unknown>) =>
    Effect.gen(function*() {
      const markers = yield* decodeMarkers(rows)
      if (markers.length === 0) return markers
      const eventIds = markers.map((m) => m.event_id)
      yield* insertDeliveries(eventIds)
      yield* sql`DELETE FROM pending_fanouts WHERE ${sql.in("event_id", eventIds)}`
      return markers
    })

  /**
   * In the event's transaction: a marker when some active webhook of the workspace subscribes to the event,
   * nothing otherwise (a workspace without webhooks writes nothing more than its event). On PostgreSQL the shared
   * lock comes first, in its own statement, so the subscriptions read afterwards are those no change is still
   * committing (`lockSubscriptions`).
   */
  const enqueue = (workspaceId: WorkspaceId, event: Event) =>
    Effect.gen(function*() {
      yield* holdSubscriptionsShared(sql, workspaceId)
      const rows = yield* sql`INSERT INTO pending_fanouts (event_id, workspace_id)
        SELECT CAST(${event.id} AS ${id}), CAST(${workspaceId} AS ${id}) WHERE EXISTS (
          SELECT 1 FROM webhook_event_types t
          WHERE t.workspace_id = ${workspaceId} AND t.event_type IN (${event.event}, '*')
          AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = t.webhook_id AND w.is_active = ${p.bool(true)}))
        RETURNING event_id`
      if (rows.length > 0) yield* afterCommit(signal.notifyWorkspace(workspaceId))
    }).pipe(persist)

  /**
   * The deliveries of an event made at once, in its transaction, without a marker: the `webhook.deactivated` event
   * recorded by the dispatcher's own transaction, which must not wait on a subscription change's lock while
   * it holds the rows of the attempts it records.
   */
  const fanOutNow = (workspaceId: WorkspaceId, event: Event) =>
    insertDeliveries([event.id]).pipe(
      Effect.andThen(afterCommit(signal.notifyWorkspace(workspaceId))),
      persist
    )

  /**
   * The fan-out step: the oldest pending events, at most `limit`, fanned out in one transaction. PostgreSQL skips
   * the markers another dispatcher is fanning out, so each event is fanned out once. Answers how many events.
   */
  const fanOutPending = (limit: number) =>
    Effect.gen(function*() {
      const lock = isPg ? sql`FOR UPDATE SKIP LOCKED` : sql``
      const rows = yield* sql`SELECT event_id, workspace_id FROM pending_fanouts ORDER BY event_id
        ${limitClause(sql, limit)} ${lock}`
      return (yield* fanOutMarkers(rows)).length
    }).pipe(sql.withTransaction, persist)

  /**
   * The workspace's pending events, all of them, fanned out in the caller's transaction before it changes the
   * subscriptions. "wait" (a subscription change, which holds nothing another fan-out needs) waits for a dispatcher
   * fanning out some of them to commit, then finds them gone; "skip" (the dispatcher's deactivation, which holds
   * rows a subscription change may wait on) leaves those to that dispatcher.
   */
  const drain = (workspaceId: WorkspaceId, locking: DrainLocking) =>
    Effect.gen(function*() {
      const lock = isPg ? (locking === "wait" ? sql`FOR UPDATE` : sql`FOR UPDATE SKIP LOCKED`) : sql``
      for (;;) {
        const rows = yield* sql`SELECT event_id, workspace_id FROM pending_fanouts
          WHERE workspace_id = ${workspaceId} ORDER BY event_id ${limitClause(sql, DRAIN_CHUNK)} ${lock}`
        // Until a statement finds none: rows another transaction deleted meanwhile shorten a chunk.
        if ((yield* fanOutMarkers(rows)).length === 0) return
      }
    }).pipe(persist)

  /**
   * First in a transaction that changes the workspace's subscriptions: on PostgreSQL the exclusive per-workspace
   * lock (it waits for the writers whose markers are not committed yet, and holds back new ones until the change
   * commits; it also serialises the workspace's webhook creates, whose number is capped), then the drain.
   */
  const lockSubscriptions = (workspaceId: WorkspaceId) =>
    Effect.gen(function*() {
      if (isPg) yield* sql`SELECT pg_advisory_xact_lock(${SUBSCRIPTIONS_LOCK}, hashtext(${workspaceId}))`
      yield* drain(workspaceId, "wait")
    }).pipe(persist)

  return { enqueue, fanOutNow, fanOutPending, drain, lockSubscriptions } as const
})
