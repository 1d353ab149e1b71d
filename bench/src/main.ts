/**
 * `pnpm bench [--quick]` (issue 6): support-engine beside a hand-written node:http + better-sqlite3 server and a
 * Fastify 5 one, in-process and over HTTP, at scale and at start-up, and its webhook dispatcher beside a raw
 * loop. Prints a progress line per phase and a table, and writes a JSON result file
 * (bench/results/<timestamp>.json) so two runs can be compared.
 * Benchmarks report; nothing here fails on a figure.
 */
import { execSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { cpus, freemem, tmpdir, totalmem } from "node:os"
import { dirname, join, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { repliesReport, repliesThroughput } from "./AiReplies.js"
import { retrievalLatency, retrievalReport } from "./AiRetrieval.js"
import { fairnessPhase, fairnessReport } from "./Fairness.js"
import { operationRequests } from "./Fixtures.js"
import {
  inProcess,
  type InProcessResult,
  type Operation,
  OPERATIONS,
  scaleLatency,
  type ScaleResult
} from "./InProcess.js"
import { load, type LoadResult } from "./Load.js"
import { seamsPhase, seamsReport } from "./Seams.js"
import { type SearchLatency, searchLatency } from "./Search.js"
import { benchPgUrl, searchLatencyPostgres } from "./SearchPostgres.js"
import { seed, type Seeded } from "./Seed.js"
import { buildServers, type Running, type ServerKind, SERVERS, startServer, stopServer } from "./Servers.js"
import { simulateBench, simulateReport } from "./Simulate.js"
import { webhookPhase, webhookReport, type WebhookResult } from "./Webhooks.js"

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, "../..")
const quick = process.argv.includes("--quick")
/** `--seams`: only the A/B of every speed seam against its stock part (Seams.ts). */
const seamsOnly = process.argv.includes("--seams")
/** `--search`: only the search-at-scale phase (its seeds take minutes at 1,000,000 rows). */
const searchOnly = process.argv.includes("--search")
/** `--ai`: only agent retrieval at 10,000 and 1,000,000 passages (AiRetrieval.ts). */
const aiOnly = process.argv.includes("--ai")
/** `--replies`: only the AI reply loop's throughput at 100,000 passages (AiReplies.ts). */
const repliesOnly = process.argv.includes("--replies")
/** `--fairness`: only fair webhook delivery: B's latency beside A's silent webhooks, writes with 20 (Fairness.ts). */
const fairnessOnly = process.argv.includes("--fairness")
/** `--database-url URL`: the database of `--fairness` (an empty one; SQLite in a temporary directory by default). */
const databaseUrl = (() => {
  const at = process.argv.indexOf("--database-url")
  return at === -1 ? undefined : process.argv[at + 1]
})()

const settings = quick
  ? {
    customers: 100_000,
    inProcess: { ms: 600, maxOps: 200_000 },
    http: { rounds: 3, warmupMs: 400, measureMs: 900, connections: 50 },
    scaleSizes: [10_000, 100_000],
    searchSizes: [10_000, 100_000],
    scaleSamples: 150,
    startupSamples: 1,
    webhooks: { deliveries: 2_000, rounds: 1, memoryDeliveries: 2_000, concurrency: 16, sampleMs: 100 },
    seams: {
      rounds: 3,
      inProcessMs: 400,
      modelMs: 200,
      http: { rounds: 3, warmupMs: 400, measureMs: 900, connections: 50 }
    }
  }
  : {
    customers: 100_000,
    inProcess: { ms: 2_500, maxOps: 1_000_000 },
    http: { rounds: 3, warmupMs: 2_000, measureMs: 5_000, connections: 50 },
    scaleSizes: [10_000, 1_000_000],
    searchSizes: [100_000, 1_000_000],
    scaleSamples: 500,
    startupSamples: 3,
    webhooks: { deliveries: 50_000, rounds: 3, memoryDeliveries: 100_000, concurrency: 16, sampleMs: 250 },
    seams: {
      rounds: 5,
      inProcessMs: 1_000,
      modelMs: 500,
      http: { rounds: 3, warmupMs: 1_000, measureMs: 3_000, connections: 50 }
    }
  }

const started = performance.now()
const progress = (message: string) =>
  process.stdout.write(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)}s] ${message}\n`)

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

// ---------------------------------------------------------------------------------------------------------------
// Phases

type HttpResult = Record<
  Operation,
  Record<ServerKind, { rps: number; p50: number; p99: number; failures: number; rounds: Array<LoadResult> }>
>

const httpPhase = async (seeded: Seeded): Promise<HttpResult> => {
  const servers = [] as Array<Running>
  try {
    for (const kind of SERVERS) servers.push(await startServer(kind, seeded.file, progress))
    const requests = operationRequests(seeded)
    const rounds = {} as Record<Operation, Record<ServerKind, Array<LoadResult>>>
    for (const op of OPERATIONS) rounds[op] = { engine: [], raw: [], fastify: [], floor: [] }
    for (let round = 0; round < settings.http.rounds; round++) {
      // Rotate which server goes first so drift (heat, WAL growth) does not favour one of them.
      const order = SERVERS.map((_, i) => SERVERS[(i + round) % SERVERS.length]!)
      for (const op of OPERATIONS) {
        for (const kind of order) {
          const server = servers.find((s) => s.kind === kind)!
          const result = await load({
            baseUrl: `http://127.0.0.1:${server.port}`,
            connections: settings.http.connections,
            warmupMs: settings.http.warmupMs,
            measureMs: settings.http.measureMs,
            request: requests[op]
          })
          rounds[op][kind].push(result)
          progress(
            `  http round ${round + 1} ${op.padEnd(6)} ${kind.padEnd(7)} ${result.rps.toFixed(0).padStart(7)} req/s ` +
              `p50 ${result.p50.toFixed(2)} ms p99 ${result.p99.toFixed(2)} ms` +
              (result.failures > 0 ? ` (${result.failures} failures)` : "")
          )
        }
      }
    }
    const out = {} as HttpResult
    for (const op of OPERATIONS) {
      out[op] = {} as HttpResult[Operation]
      for (const kind of SERVERS) {
        const rs = rounds[op][kind]
        out[op][kind] = {
          rps: median(rs.map((r) => r.rps)),
          p50: median(rs.map((r) => r.p50)),
          p99: median(rs.map((r) => r.p99)),
          failures: rs.reduce((a, r) => a + r.failures, 0),
          rounds: rs
        }
      }
    }
    return out
  } finally {
    await Promise.all(servers.map(stopServer))
  }
}

type StartupResult = Record<string, Record<"engine" | "serve" | "raw", number>>

const startupPhase = async (dir: string, large: Seeded | undefined): Promise<StartupResult> => {
  const out: StartupResult = {}
  const empty = join(dir, "startup-empty.db")
  // The engine migrates the empty file on its first start; each later start finds it migrated. The raw server
  // needs the schema, so it starts on the same file after the engine has created it.
  const measure = async (kind: "engine" | "serve" | "raw", file: string) => {
    const times: Array<number> = []
    for (let i = 0; i < settings.startupSamples; i++) {
      const server = await startServer(kind, file, progress)
      times.push(server.startupMs)
      await stopServer(server)
    }
    return times
  }
  const firstEngine = await startServer("engine", empty, progress)
  const migrateMs = firstEngine.startupMs
  await stopServer(firstEngine)
  // `pnpm start` on a new empty file: it migrates and bootstraps a workspace and a token (D42).
  const fresh = await startServer("serve", join(dir, "startup-serve.db"), progress)
  await stopServer(fresh)
  out["empty database (first start, migrating)"] = { engine: migrateMs, serve: fresh.startupMs, raw: Number.NaN }
  out["empty database (migrated)"] = {
    engine: median(await measure("engine", empty)),
    serve: median(await measure("serve", empty)),
    raw: median(await measure("raw", empty))
  }
  if (large !== undefined) {
    out[`${large.customers.toLocaleString("en")} customers`] = {
      engine: median(await measure("engine", large.file)),
      serve: median(await measure("serve", large.file)),
      raw: median(await measure("raw", large.file))
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits }) : "-"
const ratio = (a: number, b: number) => Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : "-"

const table = (headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n")
}

const LABEL: Record<Operation, string> = {
  get: "GET /v1/customers/{id}",
  list: "GET /v1/customers?per_page=15&page=N",
  create: "POST /v1/conversations"
}

const report = (results: {
  inProcess: InProcessResult
  http: HttpResult | null
  scale: Record<string, ScaleResult>
  startup: StartupResult
  webhooks: WebhookResult | string
}) => {
  const parts: Array<string> = []
  const ip = results.inProcess
  parts.push(
    "In-process (ops/s; ratio = against the raw prepared statements, same process; effect = tracing on, Effect's" +
      " default; untraced = tracing off, as the facade and the standalone server run)"
  )
  parts.push(table(
    ["operation", "raw", "effect", "untraced", "facade", "effect/raw", "untraced/raw", "facade/raw"],
    OPERATIONS.map((op) => [
      LABEL[op],
      fmt(ip[op].raw.opsPerSecond),
      fmt(ip[op].effect.opsPerSecond),
      fmt(ip[op].untraced.opsPerSecond),
      fmt(ip[op].facade.opsPerSecond),
      ratio(ip[op].effect.opsPerSecond, ip[op].raw.opsPerSecond),
      ratio(ip[op].untraced.opsPerSecond, ip[op].raw.opsPerSecond),
      ratio(ip[op].facade.opsPerSecond, ip[op].raw.opsPerSecond)
    ])
  ))
  if (results.http !== null) {
    const h = results.http
    parts.push(
      `\nHTTP (${settings.http.connections} connections, median of ${settings.http.rounds} rounds; req/s and p50/p99 ms;` +
        " floor = HttpApi alone with fixed answers)"
    )
    parts.push(table(
      [
        "operation",
        "engine",
        "raw",
        "fastify",
        "floor",
        "engine/raw",
        "engine/fastify",
        "floor/raw",
        "engine/floor",
        "engine p50/p99",
        "raw p50/p99",
        "fastify p50/p99"
      ],
      OPERATIONS.map((op) => [
        LABEL[op],
        fmt(h[op].engine.rps),
        fmt(h[op].raw.rps),
        fmt(h[op].fastify.rps),
        fmt(h[op].floor.rps),
        ratio(h[op].engine.rps, h[op].raw.rps),
        ratio(h[op].engine.rps, h[op].fastify.rps),
        ratio(h[op].floor.rps, h[op].raw.rps),
        ratio(h[op].engine.rps, h[op].floor.rps),
        `${fmt(h[op].engine.p50, 2)}/${fmt(h[op].engine.p99, 2)}`,
        `${fmt(h[op].raw.p50, 2)}/${fmt(h[op].raw.p99, 2)}`,
        `${fmt(h[op].fastify.p50, 2)}/${fmt(h[op].fastify.p99, 2)}`
      ])
    ))
  } else {
    parts.push("\nHTTP: not measured (the engine server did not start)")
  }
  parts.push("\nScale (in-process latency ms, p50 / p99; raw statements vs Effect services)")
  const sizes = Object.keys(results.scale)
  parts.push(table(
    ["probe", ...sizes.flatMap((s) => [`raw @${s}`, `effect @${s}`])],
    (["get", "list page 1", "list page 5000"] as const).map((probe) => [
      probe,
      ...sizes.flatMap((s) => {
        const r = results.scale[s]![probe]
        return [`${fmt(r.raw.p50, 3)}/${fmt(r.raw.p99, 3)}`, `${fmt(r.effect.p50, 3)}/${fmt(r.effect.p99, 3)}`]
      })
    ])
  ))
  parts.push(
    `\nStart-up (process start to /health 200, ms, median of ${settings.startupSamples}; every server bundled, ` +
      "plain node; engine = StandaloneLive, serve = pnpm start's executable)"
  )
  parts.push(table(
    ["database", "engine", "serve", "raw", "engine/raw", "serve/raw"],
    Object.entries(results.startup).map((
      [name, r]
    ) => [name, fmt(r.engine), fmt(r.serve), fmt(r.raw), ratio(r.engine, r.raw), ratio(r.serve, r.raw)])
  ))
  parts.push(
    typeof results.webhooks === "string"
      ? `\nWebhooks: not measured (${results.webhooks})`
      : `\n${webhookReport(results.webhooks)}`
  )
  return parts.join("\n")
}

// ---------------------------------------------------------------------------------------------------------------

/** `--seams`: the A/B table of every seam, printed and written like a full run's results. */
const seamsRun = async (seeded: Seeded, machine: Record<string, unknown>) => {
  const seams = await seamsPhase(seeded, settings.seams, progress)
  process.stdout.write(`\nSpeed seams against their stock parts (medians of the rounds; gain = seam over stock)\n`)
  process.stdout.write(`${seamsReport(seams)}\n`)
  const resultsDir = join(here, "..", "results")
  mkdirSync(resultsDir, { recursive: true })
  const file = join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, "-")}-seams${quick ? "-quick" : ""}.json`)
  writeFileSync(file, JSON.stringify({ mode: quick ? "seams-quick" : "seams", machine, settings, seams }, null, 2))
  progress(`done; results in ${file}`)
}

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "support-bench-"))
  const machine = {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    freeMemoryGiB: Math.round(freemem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    commit: (() => {
      try {
        return execSync("git rev-parse --short HEAD", { cwd: root }).toString().trim()
      } catch {
        return "unknown"
      }
    })()
  }
  progress(
    `support-engine bench (${quick ? "quick" : "full"}) on ${machine.nproc} cores, node ${machine.node}; data in ${dir}`
  )
  try {
    if (process.argv.includes("--simulate")) {
      process.stdout.write(`\n${simulateReport(await simulateBench(quick ? 2_000 : 10_000, progress))}\n`)
      return
    }
    if (fairnessOnly) {
      const fairness = await fairnessPhase(
        dir,
        quick
          ? { samples: 100, backlogEvents: 50, busyEveryMs: 100, rounds: 3, measureMs: 1_500 }
          : { samples: 300, backlogEvents: 100, busyEveryMs: 50, rounds: 5, measureMs: 3_000 },
        progress,
        databaseUrl
      )
      process.stdout.write(`\n${fairnessReport(fairness)}\n`)
      const resultsDir = join(here, "..", "results")
      mkdirSync(resultsDir, { recursive: true })
      const file = join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, "-")}-fairness.json`)
      writeFileSync(file, JSON.stringify({ mode: "fairness", machine, fairness }, null, 2))
      progress(`done; results in ${file}`)
      return
    }
    if (aiOnly) {
      const results = []
      for (const passages of quick ? [10_000, 100_000] : [10_000, 1_000_000]) {
        progress(`ai: ${passages.toLocaleString("en")} passages`)
        results.push(await retrievalLatency(dir, passages, 200))
      }
      process.stdout.write(`\n${retrievalReport(results)}\n`)
      return
    }
    if (repliesOnly) {
      progress("replies: 100,000 passages")
      process.stdout.write(`\n${repliesReport(await repliesThroughput(dir, 100_000, quick ? 500 : 2_000))}\n`)
      return
    }
    if (searchOnly) {
      const search = await searchPhase(dir)
      process.stdout.write(`\n${searchReport(search)}\n`)
      return
    }
    progress("build: the servers and pnpm start's executable, bundled with esbuild")
    buildServers()
    progress(`seed: ${settings.customers.toLocaleString("en")} customers`)
    const seeded = await seed(join(dir, "main.db"), settings.customers)
    if (seamsOnly) return await seamsRun(seeded, machine)

    progress("in-process: raw statements vs Effect services vs Promise facade")
    const inProcessResult = await inProcess(seeded, settings.inProcess)

    progress("http: engine vs node:http vs Fastify, each in its own process")
    let http: HttpResult | null = null
    try {
      http = await httpPhase(seeded)
    } catch (error) {
      progress(`http: not measured: ${error instanceof Error ? error.message.slice(0, 500) : String(error)}`)
    }

    const scale: Record<string, ScaleResult> = {}
    let largest: Seeded | undefined
    for (const size of settings.scaleSizes) {
      progress(`scale: seed ${size.toLocaleString("en")} customers`)
      const s = await seed(join(dir, `scale-${size}.db`), size)
      progress(`scale: latency at ${size.toLocaleString("en")} customers`)
      scale[size.toLocaleString("en")] = await scaleLatency(s, settings.scaleSamples)
      largest = s
    }

    const search = await searchPhase(dir)

    progress("start-up: empty database and the largest scale database")
    const startup = await startupPhase(dir, largest)

    progress("webhooks: engine dispatcher vs a raw undici + HMAC + better-sqlite3 loop, each in its own process")
    let webhooks: WebhookResult | string
    try {
      webhooks = await webhookPhase(dir, settings.webhooks, progress)
    } catch (error) {
      webhooks = error instanceof Error ? error.message.slice(0, 500) : String(error)
      progress(`webhooks: not measured: ${webhooks}`)
    }

    const results = { inProcess: inProcessResult, http, scale, search, startup, webhooks }
    const text = `${report(results)}\n\n${searchReport(search)}`
    process.stdout.write(`\n${text}\n`)
    const resultsDir = join(here, "..", "results")
    mkdirSync(resultsDir, { recursive: true })
    const file = join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, "-")}${quick ? "-quick" : ""}.json`)
    writeFileSync(
      file,
      JSON.stringify(
        { mode: quick ? "quick" : "full", machine, settings, ...results },
        null,
        2
      )
    )
    progress(`done; results in ${file}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

interface SearchResults {
  readonly sqlite: ReadonlyArray<SearchLatency>
  /** Empty without SUPPORT_BENCH_PG_URL or SUPPORT_TEST_PG_URL. */
  readonly postgres: ReadonlyArray<SearchLatency>
}

/** Seeds each search size and measures a selective search on it, on SQLite (Search.ts) and PostgreSQL. */
async function searchPhase(dir: string): Promise<SearchResults> {
  const sqlite: Array<SearchLatency> = []
  for (const size of settings.searchSizes) {
    progress(`search: seed ${size.toLocaleString("en")} customers (the text index is kept as they are inserted)`)
    const s = await seed(join(dir, `search-${size}.db`), size)
    progress(`search: selective q at ${size.toLocaleString("en")} customers`)
    sqlite.push(await searchLatency(s, settings.scaleSamples))
    rmSync(s.file, { force: true })
  }
  const postgres: Array<SearchLatency> = []
  if (benchPgUrl === undefined) progress("search (PostgreSQL): skipped, no SUPPORT_BENCH_PG_URL or SUPPORT_TEST_PG_URL")
  else {
    for (const size of settings.searchSizes) {
      postgres.push(await searchLatencyPostgres(benchPgUrl, size, settings.scaleSamples, progress))
    }
  }
  return { sqlite, postgres }
}

function searchLines(title: string, results: ReadonlyArray<SearchLatency>): string {
  const lines = results.map((r) =>
    `  ${r.rows.toLocaleString("en").padStart(10)} rows: p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms ` +
    `(${r.matches} matches)`
  )
  const first = results[0]
  const last = results[results.length - 1]
  const ratio = first !== undefined && last !== undefined ? (last.p50 / first.p50).toFixed(2) : "n/a"
  return `${title}:\n${lines.join("\n")}\n  ratio largest/smallest p50: ${ratio}x`
}

function searchReport(results: SearchResults): string {
  const sqlite = searchLines("Selective search (q on customers, in process, SQLite)", results.sqlite)
  return results.postgres.length === 0
    ? sqlite
    : `${sqlite}\n${searchLines("Selective search (q on customers, in process, PostgreSQL)", results.postgres)}`
}

await main()
