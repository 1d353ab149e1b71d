/**
 * An operation of the simulation and what operations share: the simulation's state (`Sim`), running a call as a
 * workspace's principal, and the two kinds of call. A valid call must succeed. An invalid one must fail with the
 * typed error the contract gives and change nothing: no event recorded, no delivery queued, no reply job, and the
 * record it aimed at (when it names one) as it was.
 */
import { Principal, type PrincipalShape } from "@support-engine/core"
import { Effect, Predicate, Result } from "effect"
import { SqlClient } from "effect/sql"
import type { RecordingReceiver } from "../../RecordingReceiver.js"
import type { TestEngine } from "../../TestEngine.js"
import type { EngineHost } from "../EngineHost.js"
import { broken } from "../Failure.js"
import type { DeliveryOracle } from "../invariants/Deliveries.js"
import type { Space, World } from "../Model.js"
import type { PlantedBug } from "../Options.js"
import type { Rng } from "../Rng.js"

export interface Sim {
  readonly world: World
  readonly engine: EngineHost
  readonly receiver: RecordingReceiver["Service"]
  readonly trace: Array<string>
  readonly plantBug: PlantedBug | undefined
  readonly crashes: boolean
  readonly deliveries: DeliveryOracle
  /**
   * The database is across a network (PostgreSQL): every query is a wait, so background work that a step's earlier
   * calls set off runs while the step goes on, and checks that compare before and after look only at what the step's
   * own principal did.
   */
  readonly network: boolean
}

export interface Op {
  readonly name: string
  /** How often it is chosen, against the others' weights. */
  readonly weight: number
  /** Runs it: the trace line, or undefined when the state does not allow it now (the step is then a skip). */
  readonly run: (sim: Sim, rng: Rng) => Effect.Effect<string | undefined>
}

type Call<A, E> = Effect.Effect<A, E, TestEngine | Principal>

/** Any call of the engine as a principal, for lists of calls to choose from. */
export type AnyCall = Call<unknown, { readonly _tag: string }>

export const asPrincipal = (principal: PrincipalShape) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provideService(self, Principal, principal)

/** A call that must succeed; its failure breaks "a valid operation succeeds". */
export const valid = <A, E extends { readonly _tag: string }>(
  sim: Sim,
  principal: PrincipalShape | Space,
  what: string,
  call: Call<A, E>
): Effect.Effect<A> =>
  sim.engine.run(asPrincipal("principal" in principal ? principal.principal : principal)(call)).pipe(
    Effect.catch((e) => broken(`a valid operation succeeds: ${what}`, `${e._tag}: ${JSON.stringify(e)}`))
  )

/**
 * How much the engine has recorded: on SQLite events, deliveries and reply jobs (their largest rowid, which costs
 * nothing to read) and the requests the receiver got; over a network only the events `actor` recorded, since the
 * engine's background work may land meanwhile.
 */
export const recorded = (sim: Sim, actor: string | null) =>
  Effect.gen(function*() {
    const rows = yield* sim.engine.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sim.network
        ? sql`SELECT COUNT(*) AS e FROM events WHERE actor_id = ${actor}`
        : sql`SELECT (SELECT MAX(rowid) FROM events) AS e, (SELECT MAX(rowid) FROM webhook_deliveries) AS d,
            (SELECT MAX(rowid) FROM reply_jobs) AS r`)).pipe(Effect.orDie)
    // PostgreSQL's counts are 64-bit: the client reads them as bigints, which JSON has no form for.
    const counts = JSON.stringify(rows[0], (_, value) => typeof value === "bigint" ? value.toString() : value)
    return `${counts} ${sim.network ? "" : yield* sim.receiver.count}`
  })

/**
 * A call that must fail with `tag` (the contract's typed error) and change nothing. `probe` reads the record the
 * call aimed at, in the workspace that owns it; it must read the same after.
 */
export const refused = <A, E extends { readonly _tag: string }>(
  sim: Sim,
  principal: PrincipalShape | Space,
  what: string,
  tag: string,
  call: Call<A, E>,
  probe?: { readonly owner: Space; readonly read: Call<unknown, unknown> }
): Effect.Effect<string> =>
  Effect.gen(function*() {
    const read = probe === undefined
      ? Effect.succeed("")
      : sim.engine.run(asPrincipal(probe.owner.principal)(probe.read)).pipe(
        Effect.result,
        Effect.map((e) =>
          JSON.stringify(
            Result.isSuccess(e) ? e.success : Predicate.hasProperty(e.failure, "_tag") ? e.failure._tag : undefined
          )
        )
      )
    const acting = "principal" in principal ? principal.principal : principal
    const before = `${yield* recorded(sim, acting.actor.id)} ${yield* read}`
    const outcome = yield* sim.engine.run(asPrincipal(acting)(call)).pipe(Effect.result)
    if (Result.isSuccess(outcome)) return yield* broken(`an invalid operation is refused: ${what}`, "it succeeded")
    if (outcome.failure._tag !== tag) {
      return yield* broken(
        `an invalid operation is refused with its typed error: ${what}`,
        `expected ${tag}, got ${outcome.failure._tag}: ${JSON.stringify(outcome.failure)}`
      )
    }
    const after = `${yield* recorded(sim, acting.actor.id)} ${yield* read}`
    if (after !== before) return yield* broken(`an invalid operation changes nothing: ${what}`, `${before} -> ${after}`)
    return `${what}: ${tag}`
  })

/** Another workspace than `space` with something in `items`, if there is one. */
export const otherSpace = <A>(
  sim: Sim,
  space: Space,
  items: (s: Space) => ReadonlyArray<A>
): Space | undefined => sim.world.spaces.find((s) => s !== space && items(s).length > 0)

/** A live agent's id from another workspace than `space`, if there is one: for cross-workspace attempts. */
export const foreignAgent = (sim: Sim, space: Space, rng: Rng) =>
  Effect.gen(function*() {
    const live = (s: Space) => s.agents.filter((a) => !a.deleted)
    const other = otherSpace(sim, space, live)
    return other === undefined ? undefined : (yield* rng.pick(live(other))).id
  })
