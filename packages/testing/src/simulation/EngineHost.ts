/**
 * The engine the simulator drives, and its crashes. The engine is built in a scope of its own; a crash keeps the
 * database as it is at that instant (every commit, nothing after), closes the engine with attempts and reply jobs in
 * flight, and opens a new engine on the same database: a process killed and started again on the same file
 * (FoundationDB's simulator kills processes the same way, and keeps their disks).
 *
 * SQLite: the engine's connection is made read-only (`PRAGMA query_only`) before it closes, so what the closing
 * engine would still write (leases given back, attempts recorded) is lost, as a killed process would lose it.
 * PostgreSQL: connections to the database are refused and the engine's are ended before it closes, so it writes
 * nothing more; then they are allowed again.
 */
import { IdGenerator, makeIdStreams, type WebhookSettings } from "@support-engine/core"
import { clientLayer, type StoragePorts } from "@support-engine/storage"
import { Context, Duration, Effect, Exit, Layer, References, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serverDatabase, settle, withNetworkSettle } from "../Advance.js"
import type { RecordingReceiver } from "../RecordingReceiver.js"
import { makeTestEngine, type TestEngine } from "../TestEngine.js"
import { makePgTraffic } from "./PgTraffic.js"

export interface EngineHost {
  /** Runs an effect on the engine that is up now. */
  readonly run: <A, E>(effect: Effect.Effect<A, E, TestEngine>) => Effect.Effect<A, E>
  /** Whether the database survives the engine (a file or a server), so that crashes can be simulated. */
  readonly durable: boolean
  /** Kills the engine, keeps it down for `downFor` ms of simulated time, starts a new one on the same database. */
  readonly crash: (downFor: number) => Effect.Effect<void>
  /**
   * On PostgreSQL: whether a query of the engine waits for its answer (PgTraffic.ts) or the dispatcher gathers a batch
   * (Advance.ts's `serverDatabase`), for `settle`. None on SQLite.
   */
  readonly databaseBusy: Effect.Effect<boolean> | undefined
  /**
   * Marks the engine quiet before a step whose own ids come from `leader` (`IdStreams.nextTurn`): ids the step and
   * what it sets off draw sort after every id drawn before, in whichever stream, the step's own first.
   */
  readonly nextTurn: (leader: string) => Effect.Effect<void>
}

/**
 * The settings the simulator runs the dispatcher with. The limits of attempts in flight are out of reach, so that no
 * attempt waits for a slot and every one is made at exactly the time the retry schedule gives; the retry base is a
 * second, so that a delivery's ten attempts and a webhook's deactivation after five failed deliveries happen within a
 * run.
 */
export const SIMULATION_WEBHOOKS: Partial<WebhookSettings> = {
  retryBase: Duration.seconds(1),
  concurrency: 100_000,
  maxInFlightPerWebhook: 100_000,
  maxInFlightPerWorkspace: 100_000
}

type Target =
  | { readonly _tag: "Memory" }
  | { readonly _tag: "File"; readonly file: string; readonly dir: string | undefined }
  | { readonly _tag: "Postgres"; readonly admin: string; readonly name: string; readonly url: string }

const quietly = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provideService(self, References.MinimumLogLevel, "None")

const onClient = <A, E>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.scoped(
    Effect.flatMap(Layer.build(clientLayer(url)), (context) => f(Context.get(context, SqlClient.SqlClient)))
  )
    .pipe(Effect.orDie)

/**
 * A directory of the run's own for its SQLite file: in memory-backed storage (`/dev/shm`) where the system has it, else
 * the temporary directory. A crash here is a process killed, never the machine losing power, so the file has only to
 * outlive the engine, never to reach a disk: there SQLite's syncs of the write-ahead log at each checkpoint cost
 * nothing, where on a disk they made each commit wait on the disk (docs/performance.md, Simulator). What the engines
 * read and write is the same.
 */
const scratchDir = () => {
  try {
    return mkdtempSync(join("/dev/shm", "support-sim-"))
  } catch {
    return mkdtempSync(join(tmpdir(), "support-sim-"))
  }
}

/** Where the run's data lives, made for it and removed with its scope. */
const target = (databaseUrl: string | undefined, durable: boolean): Effect.Effect<Target, never, Scope.Scope> => {
  if (databaseUrl?.startsWith("postgres://") || databaseUrl?.startsWith("postgresql://")) {
    const admin = databaseUrl
    // The name is only for the server; nothing of it reaches the trace, so it may be random.
    const name = `support_sim_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
    const url = new URL(admin)
    url.pathname = `/${name}`
    return Effect.acquireRelease(
      Effect.as(onClient(admin, (sql) => sql.unsafe(`CREATE DATABASE ${name}`)), {
        _tag: "Postgres" as const,
        admin,
        name,
        url: url.toString()
      }),
      () => quietly(onClient(admin, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)))
    )
  }
  if (databaseUrl !== undefined && databaseUrl !== "file::memory:" && databaseUrl !== ":memory:") {
    return Effect.succeed({ _tag: "File", file: databaseUrl.replace(/^file:/, ""), dir: undefined })
  }
  if (!durable) return Effect.succeed({ _tag: "Memory" })
  // Removed with the scope, or when the process exits before (memory-backed storage is memory until removed).
  return Effect.acquireRelease(
    Effect.sync(() => {
      const dir = scratchDir()
      const remove = () => rmSync(dir, { recursive: true, force: true })
      process.once("exit", remove)
      return { target: { _tag: "File" as const, file: join(dir, "sim.db"), dir }, remove }
    }),
    ({ remove }) =>
      Effect.sync(() => {
        process.off("exit", remove)
        remove()
      })
  ).pipe(Effect.map(({ target }) => target))
}

export const makeEngineHost = (options: {
  readonly seed: number
  readonly databaseUrl: string | undefined
  readonly crashes: boolean
  readonly receiver: RecordingReceiver["Service"]
  readonly overrides: Layer.Layer<never, never, StoragePorts> | undefined
}): Effect.Effect<EngineHost, never, Scope.Scope> =>
  Effect.gen(function*() {
    const where = yield* target(options.databaseUrl, options.crashes)
    const url = where._tag === "Memory" ? "file::memory:" : where._tag === "File" ? `file:${where.file}` : where.url
    // One set of id streams for every engine of the run: a reopened engine goes on drawing where the killed one
    // stopped, so its ids are new ones.
    const streams = makeIdStreams(`engine:${options.seed}`)
    const traffic = where._tag === "Postgres" ? makePgTraffic(where.url) : undefined
    const server = traffic === undefined
      ? undefined
      : { socket: traffic.socket, ...serverDatabase(Effect.sync(traffic.busy)) }
    const layer = makeTestEngine({
      databaseUrl: url,
      webhooks: SIMULATION_WEBHOOKS,
      receiver: options.receiver,
      ids: IdGenerator.fromStreams(streams),
      ...(server === undefined ? {} : { pgSocket: server.socket, attemptBatchWindow: server.batchWindow }),
      ...(options.overrides === undefined ? {} : { overrides: options.overrides })
    })

    const open = Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(layer, scope)
      return { scope, context }
    })
    // A connection of the run's own to a SQLite file, open from start to end. SQLite copies the write-ahead log into
    // the file and deletes it when the last connection closes, which each crash did (the engine's were the only ones),
    // though a killed process leaves its log as it is: a good part of the cost of each crash. What the engines read and
    // write is the same either way.
    if (where._tag === "File") yield* Layer.build(clientLayer(url))
    const databaseBusy = server?.busy
    let up = yield* open
    yield* Effect.addFinalizer(() => quietly(Scope.close(up.scope, Exit.void)))
    yield* (databaseBusy === undefined ? settle : withNetworkSettle(databaseBusy)(settle))

    const run = <A, E>(effect: Effect.Effect<A, E, TestEngine>) =>
      Effect.suspend(() => Effect.provide(effect, up.context))

    const sql = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
      Effect.orDie(run(Effect.flatMap(SqlClient.SqlClient, f)))

    const kill: Effect.Effect<void> = Effect.gen(function*() {
      if (where._tag === "File") {
        // Nothing written from here on lands: the engine's finalizers (leases given back, attempts recorded) fail
        // as a killed process's would never run. The setting ends with the connection. It is made in a
        // transaction so that it reaches the writer connection; the closing engine's transactions then die at
        // their BEGIN, so the close's outcome is of no interest.
        yield* sql((s) => s.withTransaction(s.unsafe("PRAGMA query_only = ON")))
        yield* quietly(Effect.exit(Scope.close(up.scope, Exit.void)))
      } else if (where._tag === "Postgres") {
        const { admin, name } = where
        yield* onClient(admin, (s) => s.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`))
        yield* onClient(admin, (s) =>
          s.unsafe(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`
          ))
        yield* quietly(Scope.close(up.scope, Exit.void))
        yield* onClient(admin, (s) => s.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`))
      }
    })

    const crash = (downFor: number) =>
      Effect.gen(function*() {
        yield* kill
        yield* TestClock.adjust(Duration.millis(downFor))
        up = yield* open
        yield* settle
      })

    return {
      run,
      durable: where._tag !== "Memory",
      crash,
      databaseBusy,
      nextTurn: streams.nextTurn
    } satisfies EngineHost
  })
