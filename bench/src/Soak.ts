/**
 * `pnpm --filter @support-engine/bench soak`: a steady write load with a webhook, pruned as the servers prune, over
 * several retention periods, printing the database's size and row counts as it goes: once the oldest rows start
 * going, both level off.
 *
 * Retention is whole days in production; here a period is seconds, so the soak runs the same pass the hourly pruner
 * runs (`Retention.prune`) with `before` = now minus the period, every quarter period. Each event carries a payload
 * of `--payload` bytes and is delivered to a local receiver that answers 204 (every `--fail-every`th delivery 500:
 * retries and failed deliveries too).
 *
 *   tsx src/Soak.ts [--period 20] [--duration 70] [--rate 100] [--payload 300] [--fail-every 10] [--database URL]
 */
import {
  Actor,
  CreateWebhook,
  CreateWorkspace,
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
import Database from "better-sqlite3"
import { DateTime, Duration, Effect, Layer, References, Schedule, Schema } from "effect"
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"

const option = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`)
  const value = at === -1 ? fallback : Number(process.argv[at + 1])
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`)
  return value
}

const period = Duration.seconds(option("period", 20))
const duration = Duration.seconds(option("duration", 70))
const rate = option("rate", 100)
const payload = "x".repeat(option("payload", 300))
const failEvery = option("fail-every", 10)
const databaseAt = process.argv.indexOf("--database")
const dir = mkdtempSync(join(tmpdir(), "support-engine-soak-"))
const file = join(dir, "support.db")
const databaseUrl = databaseAt === -1 ? `file:${file}` : process.argv[databaseAt + 1]!

/** A receiver on loopback that answers 204, and 500 to every `failEvery`th request. */
const receiver = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly close: () => void }>((resume) => {
    let requests = 0
    const server = createServer((req, res) => {
      req.resume()
      req.on("end", () => res.writeHead(++requests % failEvery === 0 ? 500 : 204).end())
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}/hook`, close: () => server.close() }))
    })
  }),
  (r) => Effect.sync(r.close)
)

const Count = Schema.Struct({ n: Schema.Number })
const decodeCount = Schema.decodeUnknownSync(Count)

/** Rows of each table, read on a connection of its own (SQLite only: the engine's client is not exposed). */
const counts = (): ReadonlyArray<number | string> => {
  if (!databaseUrl.startsWith("file:")) return ["-", "-", "-"]
  const db = new Database(file, { readonly: true })
  try {
    return ["events", "webhook_deliveries", "webhook_delivery_attempts"].map((table) =>
      decodeCount(db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()).n
    )
  } finally {
    db.close()
  }
}

/** The SQLite file and its write-ahead log, in MB; 0 for PostgreSQL. */
const sizeMb = () => {
  const bytes = [file, `${file}-wal`].filter(existsSync).reduce((sum, f) => sum + statSync(f).size, 0)
  return (bytes / 1_048_576).toFixed(1)
}

const program = Effect.gen(function*() {
  const hook = yield* receiver
  const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name: "Soak" }))
  const principal: PrincipalShape = {
    workspaceId: workspace.id,
    organizationId: workspace.organization_id,
    abilities: ["external-api:write"],
    actor: Actor.system
  }
  const [events, tx, retention] = [yield* Events, yield* Transactor, yield* Retention]
  yield* (yield* Webhooks).create(new CreateWebhook({ url: hook.url, events: ["*"] })).pipe(
    Effect.provideService(Principal, principal)
  )

  let written = 0
  const writer = Effect.gen(function*() {
    yield* tx.withTransaction(events.record("agent.updated", { id: String(written), note: payload }))
    written++
  }).pipe(Effect.provideService(Principal, principal), Effect.repeat(Schedule.fixed(Duration.millis(1000 / rate))))
  yield* Effect.forkScoped(writer)

  console.log(
    `soak: ${databaseUrl}, retention ${Duration.format(period)}, ${Duration.format(duration)}, ${rate} events/s`
  )
  console.log("seconds  written  size_mb  events  deliveries  attempts  pruned(events/deliveries/attempts)")
  const started = yield* DateTime.now
  const tick = Duration.divideUnsafe(period, 4)
  const report = Effect.gen(function*() {
    const now = yield* DateTime.now
    const pruned = yield* retention.prune({
      before: DateTime.subtract(now, { milliseconds: Duration.toMillis(period) })
    })
    const rows = counts()
    const seconds = Math.round((now.epochMilliseconds - started.epochMilliseconds) / 1000)
    console.log(
      [seconds, written, sizeMb(), ...rows].map((v) => String(v).padStart(7)).join("  ") +
        `  ${pruned.events}/${pruned.deliveries}/${pruned.attempts}`
    )
  })
  yield* Effect.repeat(Effect.andThen(Effect.sleep(tick), report), {
    times: Math.floor(Duration.toMillis(duration) / Duration.toMillis(tick)) - 1
  })
})

// The engine as `serve` runs it (dispatcher on), its own hourly pruner off: the soak prunes on its short period.
const engine = supportEngineLayer({
  databaseUrl,
  retention: false,
  trainingWorker: false,
  replyWorker: false,
  webhooks: { allowPrivate: true, retryBase: Duration.millis(200), maxAttempts: 3, deactivateAfter: 1_000_000 }
})

await program.pipe(
  Effect.scoped,
  Effect.provide(
    Retention.layer.pipe(
      Layer.provide(RetentionConfig.layer()),
      Layer.provideMerge(engine),
      // Quiet: every delivery attempt is logged (retries as warnings).
      Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
    )
  ),
  Effect.runPromise
).finally(() => rmSync(dir, { recursive: true, force: true }))
