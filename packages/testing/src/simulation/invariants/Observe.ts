/**
 * What the engine did since the last look: the new events of every workspace's log (read with `after`, in
 * commit order) and the new requests of the receiver. Each goes to the checks that follow it, and to the trace.
 */
import { ConversationId, Events, ListEvents, ListMessages, Messages } from "@support-engine/core"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { broken } from "../Failure.js"
import { touch } from "../Model.js"
import { asPrincipal, type Sim } from "../ops/Op.js"
import { checkErasedEvent, checkErasedRequest } from "./Erasure.js"
import { onReplyEvent } from "./Replies.js"
import { checkSignature } from "./Signatures.js"

const PAGE = 100

/**
 * The workspaces whose log has grown: on SQLite from the rows after the last rowid read (a few index steps), on
 * PostgreSQL by counting. Reading every workspace's log through the API after every step cost more than the step.
 * NOT INDEXED leaves SQLite the rowid range: left to choose, it served the GROUP BY from the workspace index and read
 * every event ever recorded, each step, a cost growing with the log.
 */
const grown = (sim: Sim) =>
  sim.engine.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.onDialectOrElse({
      sqlite: () =>
        Effect.map(
          sql<
            { readonly w: string; readonly top: number }
          >`SELECT workspace_id AS w, MAX(rowid) AS top FROM events NOT INDEXED
            WHERE rowid > ${sim.world.eventRowid} GROUP BY workspace_id`,
          (rows) => {
            for (const row of rows) sim.world.eventRowid = Math.max(sim.world.eventRowid, Number(row.top))
            return new Set(rows.map((r) => r.w))
          }
        ),
      orElse: () =>
        Effect.map(
          sql<{ readonly w: string; readonly n: number }>`SELECT workspace_id AS w, COUNT(*) AS n FROM events
            GROUP BY workspace_id`,
          (rows) => {
            const counts = new Map(rows.map((r) => [r.w, Number(r.n)]))
            return new Set(sim.world.spaces.filter((s) => (counts.get(s.id) ?? 0) !== s.events).map((s) => s.id))
          }
        )
    }))).pipe(Effect.orDie)

export const observe = (sim: Sim) =>
  Effect.gen(function*() {
    const changed: ReadonlySet<string> = yield* grown(sim)
    for (const space of sim.world.spaces) {
      if (!changed.has(space.id)) continue
      for (;;) {
        const after = space.lastEvent
        const page = yield* sim.engine.run(
          asPrincipal(space.principal)(Effect.flatMap(Events, (e) =>
            e.list(new ListEvents(after === undefined ? { per_page: PAGE, page: 1 } : { after, per_page: PAGE }))))
        ).pipe(Effect.catch((e) =>
          broken("the event log can be read", e._tag)
        ))
        // The first read has no event to start after: newest first, so it is turned around (a workspace's first
        // step records a handful of events, far fewer than a page).
        const events = after === undefined ? [...page.data].reverse() : page.data
        if (after === undefined && (page.meta.total ?? 0) > PAGE) {
          return yield* Effect.die(new Error("first read of the log too long"))
        }
        for (const event of events) {
          space.events++
          space.lastEvent = event.id
          const reason = event.event === "conversation.escalated" || event.event === "webhook.deactivated"
            ? ` ${String(event.data["reason"])}`
            : ""
          sim.trace.push(`  event ${space.index} ${event.event} ${event.id}${reason}`)
          yield* checkErasedEvent(sim.world, event)
          yield* sim.deliveries.onEvent(space, event)
          yield* onReplyEvent(sim.world, space, event, (conversation, id) =>
            sim.engine.run(
              asPrincipal(space.principal)(
                Effect.flatMap(
                  Messages,
                  (m) => m.list(new ListMessages({ conversation_id: ConversationId.make(conversation), per_page: 20 }))
                )
              )
            ).pipe(
              Effect.map((page) => page.data.find((m) => m.id === id)?.content),
              Effect.catch((e) => broken("a conversation's messages can be read", e._tag))
            ))
          if (event.event === "conversation.escalated" || event.event === "conversation.agent.message.created") {
            touch(sim.world, space, "messages")
          }
        }
        if (events.length < PAGE) break
      }
    }
    const requests = yield* sim.receiver.receivedFrom(sim.world.requestsSeen)
    sim.world.requestsSeen += requests.length
    const ordered = [...requests].sort((a, b) => a.at - b.at)
    for (const request of ordered) {
      const hook = sim.world.hooksByUrl.get(request.url)
      sim.trace.push(
        `  sent ${request.at} ${request.url.slice(request.url.lastIndexOf("/") + 1)} ${request.answer} ${
          request.headers["x-service-delivery"] ?? request.headers["X-Service-Delivery"]
        }`
      )
      if (hook === undefined) return yield* broken("requests go only to webhooks' URLs", request.url)
      yield* checkSignature(request, hook, sim.plantBug)
      yield* checkErasedRequest(sim.world, request)
      yield* sim.deliveries.onRequest(request)
    }
  })
