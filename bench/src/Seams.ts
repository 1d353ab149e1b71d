/**
 * `pnpm bench --seams`: every speed seam of the engine against the stock part it replaces, in one run
 * (docs/performance.md, Seams). A seam is switched off by its fiber ref (SeamSwitches.ts, read when the engine's
 * layers are built), except the SQLite client, whose stock part is `@effect/sql-sqlite-node` under the same repositories,
 * model construction, measured on `Customer` against a plain `Schema.Class` of the same fields, and JSON log lines,
 * measured directly on a request line against `Logger.jsonLogger` as well as over HTTP.
 */
import { Customer, CustomerId, Principal, type PrincipalShape } from "@support-engine/core"
import { jsonLogLines } from "@support-engine/http"
import {
  Cause,
  DateTime,
  Effect,
  FiberId,
  FiberRefs,
  HashMap,
  List,
  Logger,
  LogLevel,
  ManagedRuntime,
  Schema
} from "effect"
import { performance } from "node:perf_hooks"
import { customerFields, operationRequests } from "./Fixtures.js"
import { effectOps, type Operation, OPERATIONS, pageFor, principalOf } from "./InProcess.js"
import { load, type LoadResult } from "./Load.js"
import { openRaw } from "./RawStore.js"
import { engineVariant, type Seam, SEAMS } from "./SeamSwitches.js"
import type { Seeded } from "./Seed.js"
import { type Running, startServer, stopServer } from "./Servers.js"

/** Seams that act in-process (the others only under the HTTP server). */
const IN_PROCESS_SEAMS: ReadonlyArray<Seam> = ["sqlite-client", "direct-statements", "untraced-fn"]

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export interface AB {
  readonly seam: string
  readonly benchmark: string
  /** For latencies: the seam gains when its figure is lower. */
  readonly lowerIsBetter?: boolean
  /** Operations a second (or req/s) with the stock part, with the seam; medians of the rounds. */
  readonly stock: number
  readonly seamed: number
  readonly stockRounds: ReadonlyArray<number>
  readonly seamedRounds: ReadonlyArray<number>
}

/** Ops/s of `op` run for `ms` (at least 20 times). */
const rateOf = (ms: number, op: (i: number) => void): number => {
  const start = performance.now()
  let i = 0
  while (i < 20 || performance.now() - start < ms) op(i++)
  return i / ((performance.now() - start) / 1000)
}

/** Model construction: `new Customer(...)` (Model.Class, validator compiled once) against `Schema.Class`. */
export const modelAB = (rounds: number, ms: number): AB => {
  class StockCustomer extends Schema.Class<StockCustomer>("StockCustomer")(Customer.fields) {}
  const at = DateTime.unsafeMake(Date.UTC(2024, 0, 1))
  const props = (i: number) => ({ ...customerFields(i, at), id: CustomerId.make(customerFields(i % 1000, at).id) })
  const stockRounds: Array<number> = []
  const seamedRounds: Array<number> = []
  for (let round = 0; round < rounds; round++) {
    stockRounds.push(rateOf(ms, (i) => new StockCustomer(props(i))))
    seamedRounds.push(rateOf(ms, (i) => new Customer(props(i))))
  }
  return {
    seam: "model",
    benchmark: "new Customer(...) (ops/s)",
    stock: median(stockRounds),
    seamed: median(seamedRounds),
    stockRounds,
    seamedRounds
  }
}

/** The request log's line (RequestLog.ts) as the logger receives it. */
const requestLine: Logger.Logger.Options<unknown> = {
  fiberId: FiberId.make(12, 0),
  logLevel: LogLevel.Info,
  message: ["request"],
  cause: Cause.empty,
  context: FiberRefs.unsafeMake(new Map()),
  spans: List.empty(),
  annotations: HashMap.make(
    ["request_id", "0b6c3c0e-6f7e-4a55-9a4c-1f2e3d4c5b6a"],
    ["method", "GET"],
    ["route", "/v1/customers/:id"],
    ["status", 200],
    ["duration_ms", 1.234],
    ["workspace_id", "5b6a0b6c-3c0e-6f7e-4a55-9a4c1f2e3d4c"]
  ),
  date: new Date()
}

/** JSON log lines: the request line formatted by the seam against `Logger.jsonLogger`. */
export const logLineAB = (rounds: number, ms: number): AB => {
  const stockRounds: Array<number> = []
  const seamedRounds: Array<number> = []
  let length = 0
  for (let round = 0; round < rounds; round++) {
    stockRounds.push(rateOf(ms, () => length += Logger.jsonLogger.log(requestLine).length))
    seamedRounds.push(rateOf(ms, () => length += jsonLogLines.log(requestLine).length))
  }
  if (length === 0) throw new Error("no line was written")
  return {
    seam: "json-log-lines",
    benchmark: "a request log line (lines/s)",
    stock: median(stockRounds),
    seamed: median(seamedRounds),
    stockRounds,
    seamedRounds
  }
}

/**
 * In-process, untraced (as the standalone server and the facade run): each in-process seam against its stock
 * part, GET, list and create through the services; the variants alternate within each round.
 */
export const inProcessAB = async (
  seeded: Seeded,
  principal: PrincipalShape,
  rounds: number,
  ms: number,
  log: (message: string) => void
): Promise<ReadonlyArray<AB>> => {
  const ids = seeded.sampleIds
  const pick = (i: number) => ids[(i * 7919) % ids.length]!
  const variants = [["all"], ...IN_PROCESS_SEAMS.map((seam) => [seam])] as const
  const runtimes = variants.map(([name]) =>
    ManagedRuntime.make(engineVariant(seeded.file, name === "all" ? new Set() : new Set([name as Seam])))
  )
  const opOf = (op: Operation) => (i: number) =>
    op === "get" ? effectOps.get(pick(i)) : op === "list" ? effectOps.list(pageFor(i)) : effectOps.create(pick(i))
  const run = (runtime: (typeof runtimes)[number], op: Operation, budget: number) =>
    runtime.runPromise(
      Effect.gen(function*() {
        const start = performance.now()
        let i = 0
        while (performance.now() - start < budget) yield* opOf(op)(i++)
        return i / ((performance.now() - start) / 1000)
      }).pipe(Effect.provideService(Principal, principal), Effect.withTracerEnabled(false))
    )
  const rates = variants.map(() => ({
    get: [] as Array<number>,
    list: [] as Array<number>,
    create: [] as Array<number>
  }))
  try {
    for (const runtime of runtimes) for (const op of OPERATIONS) await run(runtime, op, Math.min(300, ms))
    for (let round = 0; round < rounds; round++) {
      for (const op of OPERATIONS) {
        // Rotate the order each round so drift does not favour one variant.
        for (let k = 0; k < variants.length; k++) {
          const v = (k + round) % variants.length
          rates[v]![op].push(await run(runtimes[v]!, op, ms))
        }
        log(
          `  seams in-process round ${round + 1} ${op}: ${
            rates.map((r, v) => `${variants[v]![0]} ${r[op].at(-1)!.toFixed(0)}`).join(", ")
          }`
        )
      }
    }
  } finally {
    await Promise.all(runtimes.map((runtime) => runtime.dispose()))
  }
  return IN_PROCESS_SEAMS.flatMap((seam, k) =>
    OPERATIONS.map((op): AB => ({
      seam,
      benchmark: `in-process ${op}, untraced (ops/s)`,
      stock: median(rates[k + 1]![op]),
      seamed: median(rates[0]![op]),
      stockRounds: rates[k + 1]![op],
      seamedRounds: rates[0]![op]
    }))
  )
}

/**
 * Over HTTP: one engine server per variant (every seam, and each seam switched to its stock part), all on one
 * database, loaded in turn like the main HTTP phase; each seam is judged on req/s and, for the scheduler, on p99.
 * One more server has every seam but writes no request log (`SUPPORT_LOG_LEVEL=warning`): the log's cost, as
 * "request log" with the log off as the stock part.
 */
export const httpAB = async (
  seeded: Seeded,
  settings: {
    readonly rounds: number
    readonly warmupMs: number
    readonly measureMs: number
    readonly connections: number
  },
  log: (message: string) => void
): Promise<ReadonlyArray<AB>> => {
  const variants: ReadonlyArray<"all" | Seam | "log-off"> = ["all", ...SEAMS, "log-off"]
  const servers: Array<Running> = []
  const results = variants.map(() => ({
    get: [] as Array<LoadResult>,
    list: [] as Array<LoadResult>,
    create: [] as Array<LoadResult>
  }))
  try {
    for (const variant of variants) {
      const env = variant === "log-off"
        ? { BENCH_STOCK: "", SUPPORT_LOG_LEVEL: "warning" }
        : { BENCH_STOCK: variant === "all" ? "" : variant }
      servers.push(await startServer("engine", seeded.file, log, env))
    }
    const requests = operationRequests(seeded)
    for (let round = 0; round < settings.rounds; round++) {
      for (const op of OPERATIONS) {
        for (let k = 0; k < variants.length; k++) {
          const v = (k + round) % variants.length
          const result = await load({
            baseUrl: `http://127.0.0.1:${servers[v]!.port}`,
            connections: settings.connections,
            warmupMs: settings.warmupMs,
            measureMs: settings.measureMs,
            request: requests[op]
          })
          results[v]![op].push(result)
          log(
            `  seams http round ${round + 1} ${op.padEnd(6)} ${variants[v]!.padEnd(17)} ${
              result.rps.toFixed(0).padStart(6)
            }` +
              ` req/s p99 ${result.p99.toFixed(1)} ms` + (result.failures > 0 ? ` (${result.failures} failures)` : "")
          )
        }
      }
    }
  } finally {
    await Promise.all(servers.map(stopServer))
  }
  const rps = (v: number, op: Operation) => results[v]![op].map((r) => r.rps)
  const p99 = (v: number, op: Operation) => results[v]![op].map((r) => r.p99)
  const logOff = variants.length - 1
  const requestLog = OPERATIONS.map((op): AB => ({
    seam: "request log",
    benchmark: `HTTP ${op} (req/s), stock = off`,
    stock: median(rps(logOff, op)),
    seamed: median(rps(0, op)),
    stockRounds: rps(logOff, op),
    seamedRounds: rps(0, op)
  }))
  return [
    ...requestLog,
    ...SEAMS.flatMap((seam, k) => [
      ...OPERATIONS.map((op): AB => ({
        seam,
        benchmark: `HTTP ${op} (req/s)`,
        stock: median(rps(k + 1, op)),
        seamed: median(rps(0, op)),
        stockRounds: rps(k + 1, op),
        seamedRounds: rps(0, op)
      })),
      ...(seam === "io-scheduler"
        ? OPERATIONS.map((op): AB => ({
          seam,
          benchmark: `HTTP ${op} p99 (ms)`,
          lowerIsBetter: true,
          stock: median(p99(k + 1, op)),
          seamed: median(p99(0, op)),
          stockRounds: p99(k + 1, op),
          seamedRounds: p99(0, op)
        }))
        : [])
    ])
  ]
}

/** The report's table: each seam, its benchmark, stock and seam figures and the gain. */
export const seamsReport = (results: ReadonlyArray<AB>): string => {
  const rows = results.map((r) => [
    r.seam,
    r.benchmark,
    r.stock.toFixed(r.lowerIsBetter ? 1 : 0),
    r.seamed.toFixed(r.lowerIsBetter ? 1 : 0),
    `${(((r.lowerIsBetter ? r.stock / r.seamed : r.seamed / r.stock) - 1) * 100).toFixed(0)}%`
  ])
  const headers = ["seam", "benchmark", "stock", "seam", "gain"]
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n")
}

export interface SeamsSettings {
  readonly rounds: number
  readonly inProcessMs: number
  readonly modelMs: number
  readonly http: {
    readonly rounds: number
    readonly warmupMs: number
    readonly measureMs: number
    readonly connections: number
  }
}

/** Every seam against its stock part: model construction, in-process, then HTTP. */
export const seamsPhase = async (
  seeded: Seeded,
  settings: SeamsSettings,
  log: (message: string) => void
): Promise<ReadonlyArray<AB>> => {
  const raw = openRaw(seeded.file)
  const rawPrincipal = raw.authenticate(`Bearer ${seeded.token}`)
  raw.close()
  if (rawPrincipal === null) throw new Error("seeded token does not authenticate")
  log("seams: model construction")
  const model = modelAB(settings.rounds, settings.modelMs)
  log("seams: JSON log lines")
  const logLine = logLineAB(settings.rounds, settings.modelMs)
  log("seams: in-process, untraced")
  const inProcess = await inProcessAB(
    seeded,
    principalOf(seeded, rawPrincipal.organizationId),
    settings.rounds,
    settings.inProcessMs,
    log
  )
  log("seams: HTTP, one engine server per variant")
  const http = await httpAB(seeded, settings.http, log)
  return [model, logLine, ...inProcess, ...http]
}
