/**
 * `pnpm bench --soak`: a steady write load with a webhook, pruned as the servers prune, over several retention
 * periods, on SQLite or PostgreSQL. A row per sample shows the database's size, the row counts, the pruner's share
 * of the time and the webhook backlog gauge; a summary per period and a verdict line follow. Once the oldest rows
 * start going, size and counts level off.
 *
 * Retention is whole days in production; here a period is seconds, so the soak runs the pass the hourly pruner runs
 * (`Retention.prune`) with `before` = now minus the period, every quarter period. Each event carries a payload of
 * `--payload` bytes and is delivered to a local receiver that answers 204 (every `--fail-every`th delivery 500:
 * retries and failed deliveries too).
 *
 *   pnpm bench --soak [--database sqlite|postgres] [--period 20] [--duration 100] [--rate 100] [--payload 300]
 *     [--fail-every 10]
 *
 * PostgreSQL: a database of its own is made on the server of `SUPPORT_BENCH_PG_URL` (or `SUPPORT_TEST_PG_URL`) and
 * dropped at the end.
 *
 * What is measured:
 * - size: SQLite, the file and its write-ahead log; PostgreSQL, `pg_total_relation_size` of the three tables (with
 *   their indexes and TOAST) and `pg_database_size` of the soak's database.
 * - prune share: the wall time of the prune passes over the wall time, per period. The writes, the dispatcher's
 *   claims and the pruner's batches all take the one writer lock (SQLite) or row locks (PostgreSQL), so this is
 *   the share of the write capacity pruning takes; the writes achieved per second beside the target rate show
 *   whether the load kept its pace.
 * - oldest pending: `support_webhook_oldest_pending_seconds`, refreshed from the database as the metrics endpoint
 *   refreshes it at a scrape, and read from the same gauge.
 */
import { PgClient } from "@effect/sql-pg"
import {
  Actor,
  CreateWebhook,
  CreateWorkspace,
  DeliveryBacklog,
  Events,
  Principal,
  type PrincipalShape,
  Retention,
  RetentionConfig,
  Transactor,
  Webhooks,
  Workspaces
} from "@support-engine/core"
import { supportEngineLayer } from "@support-engine/engine"
import { refreshBacklog, webhookOldestPendingSeconds } from "@support-engine/webhooks"
import Database from "better-sqlite3"
import { DateTime, Duration, Effect, Layer, Metric, Redacted, References, Schedule, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { benchPgUrl } from "./SearchPostgres.js"

export interface SoakOptions {
  readonly database: "sqlite" | "postgres"
  readonly periodSeconds: number
  readonly durationSeconds: number
  readonly rate: number
  readonly payloadBytes: number
  readonly failEvery: number
}

export const soakOptions = (argv: ReadonlyArray<string>): SoakOptions => {
  const option = (name: string, fallback: number): number => {
    const at = argv.indexOf(`--${name}`)
    const value = at === -1 ? fallback : Number(argv[at + 1])
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`)
    return value
  }
  const at = argv.indexOf("--database")
  const database = at === -1 ? "sqlite" : argv[at + 1]
  if (database !== "sqlite" && database !== "postgres") throw new Error("--database must be sqlite or postgres")
  return {
    database,
    periodSeconds: option("period", 20),
    durationSeconds: option("duration", 100),
    rate: option("rate", 100),
    payloadBytes: option("payload", 300),
    failEvery: option("fail-every", 10)
  }
}

export interface SoakSample {
  readonly seconds: number
  /** Events written per second since the previous sample. */
  readonly writesPerSecond: number
  readonly sizeMb: number
  /** PostgreSQL: `pg_database_size`; SQLite: the same as `sizeMb`. */
  readonly databaseMb: number
  readonly events: number
  readonly deliveries: number
  readonly attempts: number
  readonly pruned: { readonly events: number; readonly deliveries: number; readonly attempts: number }
  /** Wall time of this sample's prune pass. */
  readonly pruneMs: number
  /** Wall time of the stand-in for autovacuum (PostgreSQL with autovacuum off, once a period), else 0. */
  readonly vacuumMs: number
  readonly oldestPendingSeconds: number
}

export interface SoakPeriod {
  readonly period: number
  readonly endSeconds: number
  readonly sizeMb: number
  readonly databaseMb: number
  readonly events: number
  readonly deliveries: number
  readonly attempts: number
  readonly writesPerSecond: number
  /** Prune wall time over the period's wall time, in %. */
  readonly prunePercent: number
  readonly maxOldestPendingSeconds: number
}

export interface SoakResult {
  readonly options: SoakOptions
  readonly samples: ReadonlyArray<SoakSample>
  readonly periods: ReadonlyArray<SoakPeriod>
  readonly verdict: {
    /** The last period's size and rows within 10 % of the period before's. */
    readonly levelledOff: boolean
    /** Prune wall time over wall time after the first period, in %. */
    readonly prunePercent: number
    /** The largest oldest-pending age of the last two periods, and whether the last stayed within the one before. */
    readonly maxOldestPendingSeconds: number
    readonly oldestPendingFlat: boolean
  }
}

/** A receiver on loopback that answers 204, and 500 to every `failEvery`th request. */
const receiver = (failEvery: number) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly close: () => void }>((resume) => {
      let requests = 0
      const server = createServer((req, res) => {
        req.resume()
        req.on("end", () => res.writeHead(++requests % failEvery === 0 ? 500 : 204).end())
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed({
          url: `http://127.0.0.1:${port}/hook`,
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        }))
      })
    }),
    (r) => Effect.sync(r.close)
  )

const TABLES = ["events", "webhook_deliveries", "webhook_delivery_attempts"] as const

interface Measure {
  /** Rows of each table, size of the tables and size of the database, in MB. */
  readonly read: Effect.Effect<
    { readonly rows: ReadonlyArray<number>; readonly sizeMb: number; readonly databaseMb: number }
  >
  /** Once a period: what the database's own maintenance would do that this server does not (its wall time in ms). */
  readonly maintain: Effect.Effect<number>
}

const Count = Schema.Struct({ n: Schema.Number })
const decodeCount = Schema.decodeUnknownSync(Count)
const mb = (bytes: number) => bytes / 1_048_576

/** SQLite: counts on a read-only connection of its own; the file and its write-ahead log. */
const sqliteMeasure = (file: string): Measure => ({
  read: Effect.sync(() => {
    const db = new Database(file, { readonly: true })
    try {
      const rows = TABLES.map((table) => decodeCount(db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()).n)
      const bytes = [file, `${file}-wal`].filter(existsSync).reduce((sum, f) => sum + statSync(f).size, 0)
      return { rows, sizeMb: mb(bytes), databaseMb: mb(bytes) }
    } finally {
      db.close()
    }
  }),
  maintain: Effect.succeed(0)
})

const PgSizes = Schema.Struct({
  events: Schema.NumberFromString,
  deliveries: Schema.NumberFromString,
  attempts: Schema.NumberFromString,
  tables: Schema.NumberFromString,
  database: Schema.NumberFromString
})
const decodePgSizes = Schema.decodeUnknownSync(PgSizes)

/**
 * PostgreSQL: counts and sizes on a connection of its own. Deleted rows' space is reused once vacuumed: on a server
 * with autovacuum off (test servers often are), a plain `VACUUM` of the three tables once a period stands in for it.
 */
const pgMeasure = (sql: PgClient.PgClient, autovacuum: boolean): Measure => ({
  maintain: autovacuum ? Effect.succeed(0) : Effect.gen(function*() {
    const start = performance.now()
    yield* sql.unsafe(`VACUUM ${TABLES.join(", ")}`)
    return performance.now() - start
  }).pipe(Effect.orDie),
  read: sql.unsafe(
    `SELECT (SELECT COUNT(*) FROM events)::text AS events,
            (SELECT COUNT(*) FROM webhook_deliveries)::text AS deliveries,
            (SELECT COUNT(*) FROM webhook_delivery_attempts)::text AS attempts,
            (pg_total_relation_size('events') + pg_total_relation_size('webhook_deliveries')
              + pg_total_relation_size('webhook_delivery_attempts'))::text AS tables,
            pg_database_size(current_database())::text AS database`
  ).pipe(
    Effect.map((rows) => {
      const r = decodePgSizes(rows[0])
      return { rows: [r.events, r.deliveries, r.attempts], sizeMb: mb(r.tables), databaseMb: mb(r.database) }
    }),
    Effect.orDie
  )
})

const load = (options: SoakOptions, measure: Measure, progress: (line: string) => void) =>
  Effect.gen(function*() {
    const hook = yield* receiver(options.failEvery)
    const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name: "Soak" }))
    const principal: PrincipalShape = {
      workspaceId: workspace.id,
      organizationId: workspace.organization_id,
      abilities: ["external-api:write"],
      actor: Actor.system
    }
    const [events, tx, retention, backlog] = [
      yield* Events,
      yield* Transactor,
      yield* Retention,
      yield* DeliveryBacklog
    ]
    yield* (yield* Webhooks).create(new CreateWebhook({ url: hook.url, events: ["*"] })).pipe(
      Effect.provideService(Principal, principal)
    )

    const payload = "x".repeat(options.payloadBytes)
    let written = 0
    const writer = Effect.gen(function*() {
      yield* tx.withTransaction(events.record("agent.updated", { id: String(written), note: payload }))
      written++
    }).pipe(
      Effect.provideService(Principal, principal),
      Effect.repeat(Schedule.fixed(Duration.millis(1000 / options.rate)))
    )
    yield* Effect.forkScoped(writer)

    const period = Duration.seconds(options.periodSeconds)
    const tick = Duration.divideUnsafe(period, 4)
    const samples: Array<SoakSample> = []
    const started = performance.now()
    let last = { at: started, written: 0 }
    const sample = Effect.gen(function*() {
      const now = yield* DateTime.now
      const pruneStart = performance.now()
      const pruned = yield* retention.prune({ before: DateTime.subtract(now, { seconds: options.periodSeconds }) })
      const pruneMs = performance.now() - pruneStart
      const vacuumMs = samples.length % 4 === 3 ? yield* measure.maintain : 0
      const measured = yield* measure.read
      // What the metrics endpoint does at a scrape: refresh the backlog gauges from the database, then read them.
      yield* refreshBacklog.pipe(Effect.provideService(DeliveryBacklog, backlog))
      const oldest = yield* Metric.value(webhookOldestPendingSeconds)
      const at = performance.now()
      const row: SoakSample = {
        seconds: (at - started) / 1000,
        writesPerSecond: (written - last.written) / ((at - last.at) / 1000),
        sizeMb: measured.sizeMb,
        databaseMb: measured.databaseMb,
        events: measured.rows[0]!,
        deliveries: measured.rows[1]!,
        attempts: measured.rows[2]!,
        pruned,
        pruneMs,
        vacuumMs,
        oldestPendingSeconds: oldest.value
      }
      last = { at, written }
      samples.push(row)
      progress(sampleLine(row))
    })
    progress(
      `soak (${options.database}): retention ${options.periodSeconds} s, ${options.durationSeconds} s, ` +
        `${options.rate} events/s of ${options.payloadBytes} bytes, one webhook (every ${options.failEvery}th answer 500)`
    )
    progress(SAMPLE_HEADER)
    yield* Effect.repeat(Effect.andThen(Effect.sleep(tick), sample), {
      times: Math.floor(options.durationSeconds / Duration.toSeconds(tick)) - 1
    })
    return samples
  })

const SAMPLE_HEADER =
  "     s  writes/s  size_mb  db_mb   events  deliveries  attempts  pruned e/d/a  prune_ms  vacuum_ms  oldest_s"
const sampleLine = (s: SoakSample) =>
  [
    s.seconds.toFixed(0).padStart(6),
    s.writesPerSecond.toFixed(0).padStart(8),
    s.sizeMb.toFixed(1).padStart(7),
    s.databaseMb.toFixed(1).padStart(6),
    String(s.events).padStart(8),
    String(s.deliveries).padStart(10),
    String(s.attempts).padStart(9),
    `${s.pruned.events}/${s.pruned.deliveries}/${s.pruned.attempts}`.padStart(13),
    s.pruneMs.toFixed(0).padStart(9),
    s.vacuumMs.toFixed(0).padStart(10),
    s.oldestPendingSeconds.toFixed(1).padStart(9)
  ].join(" ")

/** Per period: the state at its end, its writes and prune share, and its largest oldest-pending age. */
export const periodsOf = (samples: ReadonlyArray<SoakSample>): Array<SoakPeriod> => {
  const periods: Array<SoakPeriod> = []
  const count = Math.ceil(samples.length / 4)
  for (let p = 0; p < count; p++) {
    const within = samples.slice(p * 4, p * 4 + 4)
    if (within.length < 4) break
    const end = within[within.length - 1]!
    const startSeconds = p === 0 ? 0 : samples[p * 4 - 1]!.seconds
    const wallMs = (end.seconds - startSeconds) * 1000
    periods.push({
      period: p + 1,
      endSeconds: end.seconds,
      sizeMb: end.sizeMb,
      databaseMb: end.databaseMb,
      events: end.events,
      deliveries: end.deliveries,
      attempts: end.attempts,
      writesPerSecond: within.reduce((sum, s) => sum + s.writesPerSecond, 0) / within.length,
      prunePercent: (100 * within.reduce((sum, s) => sum + s.pruneMs, 0)) / wallMs,
      maxOldestPendingSeconds: Math.max(...within.map((s) => s.oldestPendingSeconds))
    })
  }
  return periods
}

const verdictOf = (periods: ReadonlyArray<SoakPeriod>): SoakResult["verdict"] => {
  const [before, last] = [periods[periods.length - 2], periods[periods.length - 1]]
  if (before === undefined || last === undefined) {
    return { levelledOff: false, prunePercent: 0, maxOldestPendingSeconds: 0, oldestPendingFlat: false }
  }
  const within = (a: number, b: number) => a <= b * 1.1 + 0.05
  const steady = periods.slice(1)
  const wall = steady.reduce((sum, p, i) => sum + p.endSeconds - (periods[i]!.endSeconds), 0)
  const pruning = steady.reduce((sum, p, i) => sum + (p.prunePercent * (p.endSeconds - periods[i]!.endSeconds)), 0)
  return {
    levelledOff: within(last.sizeMb, before.sizeMb) && within(last.events, before.events) &&
      within(last.deliveries, before.deliveries) && within(last.attempts, before.attempts),
    prunePercent: pruning / wall,
    maxOldestPendingSeconds: Math.max(before.maxOldestPendingSeconds, last.maxOldestPendingSeconds),
    // Flat: the last period's worst age no worse than the period before's (a second of slack for the retries).
    oldestPendingFlat: last.maxOldestPendingSeconds <= before.maxOldestPendingSeconds * 1.1 + 1
  }
}

export const soakReport = (result: SoakResult): string => {
  const lines = [
    `Soak on ${result.options.database}: retention ${result.options.periodSeconds} s, ${result.options.rate} events/s`,
    "period  end_s  writes/s  size_mb  db_mb  events  deliveries  attempts  prune_%  max_oldest_pending_s",
    ...result.periods.map((p) =>
      [
        String(p.period).padStart(6),
        p.endSeconds.toFixed(0).padStart(6),
        p.writesPerSecond.toFixed(0).padStart(9),
        p.sizeMb.toFixed(1).padStart(8),
        p.databaseMb.toFixed(1).padStart(6),
        String(p.events).padStart(7),
        String(p.deliveries).padStart(11),
        String(p.attempts).padStart(9),
        p.prunePercent.toFixed(1).padStart(8),
        p.maxOldestPendingSeconds.toFixed(1).padStart(21)
      ].join(" ")
    )
  ]
  const v = result.verdict
  lines.push(
    `verdict: levelled off: ${v.levelledOff ? "yes" : "no"}; prune cost: ${v.prunePercent.toFixed(1)} % of wall ` +
      `time after the first period; oldest pending: max ${v.maxOldestPendingSeconds.toFixed(1)} s over the last two ` +
      `periods, flat: ${v.oldestPendingFlat ? "yes" : "no"}`
  )
  return lines.join("\n")
}

const onServer = <A>(url: string, run: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(PgClient.PgClient, run).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
    Effect.scoped,
    Effect.orDie
  )

/** The engine as `serve` runs it (dispatcher on), its own hourly pruner off: the soak prunes on its short period. */
const engineFor = (databaseUrl: string) =>
  Retention.layer.pipe(
    Layer.provide(RetentionConfig.layer()),
    Layer.provideMerge(
      supportEngineLayer({
        databaseUrl,
        retention: false,
        trainingWorker: false,
        replyWorker: false,
        webhooks: { allowPrivate: true, retryBase: Duration.millis(200), maxAttempts: 3, deactivateAfter: 1_000_000 }
      })
    ),
    // Quiet: every delivery attempt is logged (retries as warnings).
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error")),
    Layer.orDie
  )

export const soakPhase = async (options: SoakOptions, progress: (line: string) => void): Promise<SoakResult> => {
  const finish = (samples: ReadonlyArray<SoakSample>): SoakResult => {
    const periods = periodsOf(samples)
    return { options, samples, periods, verdict: verdictOf(periods) }
  }
  if (options.database === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "support-engine-soak-"))
    const file = join(dir, "support.db")
    try {
      const samples = await load(options, sqliteMeasure(file), progress).pipe(
        Effect.scoped,
        Effect.provide(engineFor(`file:${file}`)),
        Effect.runPromise
      )
      return finish(samples)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  if (benchPgUrl === undefined) throw new Error("--database postgres needs SUPPORT_BENCH_PG_URL or SUPPORT_TEST_PG_URL")
  const name = `support_engine_soak_${process.pid}`
  const url = new URL(benchPgUrl)
  url.pathname = `/${name}`
  // PostgreSQL keeps webhook secrets encrypted and will not start without a key (docs/configuration.md).
  process.env["SUPPORT_SECRET_KEY"] ??= randomBytes(32).toString("base64")
  await Effect.runPromise(onServer(benchPgUrl, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)))
  await Effect.runPromise(onServer(benchPgUrl, (sql) => sql.unsafe(`CREATE DATABASE ${name}`)))
  try {
    const samples = await Effect.gen(function*() {
      const sql = yield* PgClient.PgClient
      const [setting] = yield* Effect.orDie(sql.unsafe<{ readonly autovacuum: string }>("SHOW autovacuum"))
      const autovacuum = setting?.autovacuum === "on"
      if (!autovacuum) {
        progress("soak: the server's autovacuum is off: a plain VACUUM of the three tables once a period")
      }
      return yield* load(options, pgMeasure(sql, autovacuum), progress)
    }).pipe(
      Effect.scoped,
      Effect.provide(Layer.merge(
        engineFor(url.toString()),
        PgClient.layer({ url: Redacted.make(url.toString()), maxConnections: 1 }).pipe(Layer.orDie)
      )),
      Effect.runPromise
    )
    return finish(samples)
  } finally {
    await Effect.runPromise(onServer(benchPgUrl, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)))
  }
}
