/**
 * The switches of the engine's speed seams for `pnpm bench --seams` (Seams.ts), apart so that the engine server
 * child (servers/engine.ts) bundles only these. Each seam's switch is a fiber ref in the seam's own module;
 * `Layer.locallyScoped` sets it for every layer built after it.
 */
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { EngineLive, type EngineService, Tracing, TrainingWorker } from "@support-engine/core"
import { IoSchedulerSeam, JsonLogLinesSeam, NodeBodySeam } from "@support-engine/http"
import { DirectStatementsSeam, engineLayer, layerFromClient, type StoragePorts } from "@support-engine/storage"
import { Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"

// The stock client is a host's client: storage has no database file to keep a key file beside, so it needs
// SUPPORT_SECRET_KEY (docs/configuration.md). A random key for the run, inherited by the servers the bench starts.
process.env["SUPPORT_SECRET_KEY"] ??= randomBytes(32).toString("base64")

export const SEAMS = [
  "sqlite-client",
  "direct-statements",
  "untraced-fn",
  "node-body",
  "io-scheduler",
  "json-log-lines"
] as const
export type Seam = (typeof SEAMS)[number]

/** `BENCH_STOCK` (comma-separated seam names) as a set. */
export const stockFrom = (value: string | undefined): ReadonlySet<Seam> =>
  new Set(SEAMS.filter((seam) => (value ?? "").split(",").includes(seam)))

/** The switches of every seam: off (the stock part) for the seams in `stock`. */
export const seamSwitches = (stock: ReadonlySet<Seam>) =>
  Layer.mergeAll(
    Layer.locallyScoped(Tracing.UntracedFnSeam, !stock.has("untraced-fn")),
    Layer.locallyScoped(DirectStatementsSeam, !stock.has("direct-statements")),
    Layer.locallyScoped(NodeBodySeam, !stock.has("node-body")),
    Layer.locallyScoped(IoSchedulerSeam, !stock.has("io-scheduler")),
    Layer.locallyScoped(JsonLogLinesSeam, !stock.has("json-log-lines"))
  )

/** The pragmas the engine's SQLite client sets on its connections (storage's SqliteClient.ts). */
const PRAGMAS = ["foreign_keys = ON", "busy_timeout = 5000", "synchronous = NORMAL"]

/**
 * The engine as storage's `engineLayer` composes it, on `@effect/sql-sqlite-node`'s client (one connection, its
 * own statement cache) with the same pragmas: the stock part of the SQLite client seam.
 */
export const stockSqliteEngine = (
  filename: string,
  background: ReadonlyArray<Layer.Layer<never, never, EngineService | StoragePorts>> = []
): Layer.Layer<EngineService | StoragePorts> => {
  const client = Layer.effectDiscard(
    Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.forEach(PRAGMAS, (pragma) => sql.unsafe(`PRAGMA ${pragma}`)))
  ).pipe(Layer.provideMerge(SqliteClient.layer({ filename })), Layer.orDie)
  const engine = EngineLive.pipe(Layer.provideMerge(layerFromClient), Layer.provide(client))
  return Layer.provideMerge(Layer.mergeAll(TrainingWorker.layer(), ...background), engine).pipe(Layer.orDie)
}

/** The engine over `file` with the seams in `stock` switched to their stock parts. */
export const engineVariant = (
  file: string,
  stock: ReadonlySet<Seam>,
  background: ReadonlyArray<Layer.Layer<never, never, EngineService | StoragePorts>> = []
) =>
  (stock.has("sqlite-client")
    ? stockSqliteEngine(file, background)
    : engineLayer({ databaseUrl: `file:${file}`, background }).pipe(Layer.orDie)).pipe(
      Layer.provide(seamSwitches(stock))
    )
