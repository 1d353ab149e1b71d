/**
 * Erasure: a customer of the workspace erased, with everything of theirs; the answer's counts checked against
 * the model (their conversations exactly; their messages at least those the model knows, since an agent's reply may
 * have committed unread), and the events it redacted against the log. The model then forgets them: their
 * conversations end (and the asks in them, whose reply jobs went with them), the deliveries of the redacted events
 * not yet made are cancelled at this instant, and the idempotency keys whose answers named them are gone. Erasing
 * another workspace's customer is the same 404 as a missing one and changes nothing.
 */
import { Customers, type WorkspaceId } from "@support-engine/core"
import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { ensure } from "../Failure.js"
import { readsAfterErasure, rereadLog } from "../invariants/Erasure.js"
import { type Erasure, type Space, touch } from "../Model.js"
import { type Op, otherSpace, refused, type Sim, valid } from "./Op.js"

/** The ids of the workspace's redacted events. */
const redactedEvents = (sim: Sim, space: Space) =>
  sim.engine.run(Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const workspace: WorkspaceId = space.id
    const data = sql.onDialectOrElse({ pg: () => sql`data::text`, orElse: () => sql`data` })
    return sql<{ readonly id: string }>`SELECT id FROM events WHERE workspace_id = ${workspace}
      AND ${data} = ${JSON.stringify({ redacted: true })}`
  })).pipe(Effect.map((rows) => rows.map((r) => String(r.id))), Effect.orDie)

export const erase: Op = {
  name: "erase",
  weight: 3,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      if (yield* rng.chance(0.2)) {
        const other = otherSpace(sim, space, (s) => s.customers)
        if (other === undefined) return undefined
        const foreign = (yield* rng.pick(other.customers)).id
        return yield* refused(
          sim,
          space,
          "cross-workspace customer erase",
          "NotFound",
          Effect.flatMap(Customers, (c) => c.erase(foreign)),
          { owner: other, read: Effect.flatMap(Customers, (c) => c.get(foreign)) }
        )
      }
      if (space.customers.length === 0) return undefined
      const target = yield* rng.pick(space.customers)
      const theirs = space.conversations.filter((c) => c.customer === target.id)
      const before = new Set(yield* redactedEvents(sim, space))
      const erased = yield* valid(sim, space, "customer erase", Effect.flatMap(Customers, (c) => c.erase(target.id)))
      const now = yield* Clock.currentTimeMillis
      const redacted = (yield* redactedEvents(sim, space)).filter((id) => !before.has(id))
      const known = theirs.reduce((n, c) => n + c.messages, 0)
      const detail = () =>
        `${JSON.stringify(erased)} against ${theirs.length} conversations, ${known} messages, ${redacted.length} ` +
        "events redacted"
      yield* ensure(
        erased.customer_id === target.id && erased.conversations === theirs.length && erased.messages >= known &&
          erased.events_redacted === redacted.length,
        "an erasure counts what it removed and redacted",
        detail
      )

      space.customers.splice(space.customers.indexOf(target), 1)
      for (const c of theirs) {
        for (const ask of c.asks) ask.maybe = true
        c.deleted = true
        space.conversations.splice(space.conversations.indexOf(c), 1)
        space.messages -= c.messages
      }
      touch(sim.world, space, "customers")
      touch(sim.world, space, "conversations")
      touch(sim.world, space, "messages")
      sim.deliveries.erased(redacted, now)
      const ids = [target.id, ...theirs.map((c) => c.id)]
      for (const key of [...space.keys]) {
        if (ids.some((id) => key.answer.includes(id) || key.target.includes(id))) {
          space.keys.splice(space.keys.indexOf(key), 1)
        }
      }
      for (const id of ids) sim.world.erased.set(id, now)
      const erasure: Erasure = {
        space: space.index,
        customer: target.id,
        email: target.email,
        conversations: theirs.map((c) => c.id),
        at: now
      }
      sim.world.erasures.push(erasure)
      yield* readsAfterErasure(sim, erasure)
      yield* rereadLog(sim, space)
      return `erase ${target.id} ${erased.conversations} ${erased.messages} ${erased.events_redacted}`
    })
}
