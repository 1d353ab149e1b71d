/** The HTTP phase (engine, raw node:http, Fastify and the HttpApi floor under one load) and the start-up phase. */
import { join } from "node:path"
import { operationRequests } from "./Fixtures.js"
import { type Operation, OPERATIONS } from "./InProcess.js"
import { load, type LoadResult } from "./Load.js"
import type { Seeded } from "./Seed.js"
import { cpuMillis, type Running, type ServerKind, SERVERS, startServer, stopServer } from "./Servers.js"
import { median, progress, settings } from "./Settings.js"

// Phases

/** A round's load result with the server's CPU per request (µs, warm-up included; NaN where /proc cannot tell). */
export type HttpRound = LoadResult & { readonly cpuMicros: number }

export type HttpResult = Record<
  Operation,
  Record<
    ServerKind,
    { rps: number; p50: number; p99: number; cpuMicros: number; failures: number; rounds: Array<HttpRound> }
  >
>

export const httpPhase = async (seeded: Seeded): Promise<HttpResult> => {
  const servers = [] as Array<Running>
  try {
    for (const kind of SERVERS) servers.push(await startServer(kind, seeded.file, progress))
    const requests = operationRequests(seeded)
    const rounds = {} as Record<Operation, Record<ServerKind, Array<HttpRound>>>
    for (const op of OPERATIONS) rounds[op] = { engine: [], raw: [], fastify: [], floor: [] }
    for (let round = 0; round < settings.http.rounds; round++) {
      // Rotate which server goes first so drift (heat, WAL growth) does not favour one of them.
      const order = SERVERS.map((_, i) => SERVERS[(i + round) % SERVERS.length]!)
      for (const op of OPERATIONS) {
        for (const kind of order) {
          const server = servers.find((s) => s.kind === kind)!
          const before = cpuMillis(server.child.pid)
          const loaded = await load({
            baseUrl: `http://127.0.0.1:${server.port}`,
            connections: settings.http.connections,
            warmupMs: settings.http.warmupMs,
            measureMs: settings.http.measureMs,
            request: requests[op]
          })
          const requestsServed = loaded.rps * (settings.http.warmupMs + settings.http.measureMs) / 1000
          const result = { ...loaded, cpuMicros: (cpuMillis(server.child.pid) - before) * 1000 / requestsServed }
          rounds[op][kind].push(result)
          progress(
            `  http round ${round + 1} ${op.padEnd(6)} ${kind.padEnd(7)} ${result.rps.toFixed(0).padStart(7)} req/s ` +
              `p50 ${result.p50.toFixed(2)} ms p99 ${result.p99.toFixed(2)} ms, ${
                Number.isNaN(result.cpuMicros) ? "-" : Math.round(result.cpuMicros)
              } µs CPU per request` +
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
          cpuMicros: median(rs.map((r) => r.cpuMicros)),
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

export type StartupResult = Record<string, Record<"engine" | "serve" | "raw", number>>

export const startupPhase = async (dir: string, large: Seeded | undefined): Promise<StartupResult> => {
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
  // `pnpm start` on a new empty file: it migrates and bootstraps a workspace and a token.
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
