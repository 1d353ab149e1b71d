/**
 * `pnpm bench --otlp [--quick]`: what exporting traces costs. Two engine servers (`StandaloneLive`, bundled) on copies
 * of one seeded database, one with `OTEL_EXPORTER_OTLP_ENDPOINT` pointed at a collector stub on loopback (a
 * node:http server that answers every OTLP/HTTP export 200 and counts what it received), one without (tracing off,
 * as the standalone server runs when nothing collects spans). Each round loads GET by id, a list page and a create
 * on both, the order rotated; beside each rate, the server's CPU per request from /proc. Ratios are medians of each
 * round's on/off ratio, so a neighbour's burst moves one round's pair, not the whole ratio.
 */
import { execFileSync } from "node:child_process"
import { copyFileSync, existsSync } from "node:fs"
import { createServer } from "node:http"
import { join } from "node:path"
import { operationRequests } from "./Fixtures.js"
import { type Operation, OPERATIONS } from "./InProcess.js"
import { seed } from "./Seed.js"
import { loadWithCpu, type Running, startServer, stopServer } from "./Servers.js"
import { median, root } from "./Settings.js"

export interface OtlpSettings {
  readonly customers: number
  readonly rounds: number
  readonly warmupMs: number
  readonly measureMs: number
  readonly connections: number
}

type Variant = "off" | "on"
const VARIANTS: ReadonlyArray<Variant> = ["off", "on"]

interface Sample {
  readonly rps: number
  /** Server CPU per request in µs; NaN where /proc cannot tell. */
  readonly cpuMicros: number
}

export interface OtlpResult {
  readonly settings: OtlpSettings
  readonly load: Record<Operation, Record<Variant, Array<Sample>>>
  /** What the collector stub received from the "on" server. */
  readonly collector: { readonly requests: number; readonly bytes: number; readonly paths: Record<string, number> }
}

/** A collector stub: answers every export 200 with an empty body, counting requests and bytes per path. */
const collectorStub = () =>
  new Promise<{ readonly url: string; readonly stats: OtlpResult["collector"]; readonly close: () => void }>((ok) => {
    const stats = { requests: 0, bytes: 0, paths: {} as Record<string, number> }
    const server = createServer((req, res) => {
      stats.requests++
      stats.paths[req.url ?? ""] = (stats.paths[req.url ?? ""] ?? 0) + 1
      req.on("data", (chunk: Buffer) => {
        stats.bytes += chunk.length
      })
      req.on("end", () => res.writeHead(200, { "content-type": req.headers["content-type"] ?? "" }).end())
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      ok({
        url: `http://127.0.0.1:${port}`,
        stats,
        close: () => {
          server.closeAllConnections()
          server.close()
        }
      })
    })
  })

export const otlpPhase = async (
  dir: string,
  settings: OtlpSettings,
  progress: (message: string) => void
): Promise<OtlpResult> => {
  progress("otlp: bundle the engine server")
  execFileSync(process.execPath, ["packages/cli/build.mjs", "bench/build/servers", "bench/src/servers/engine.ts"], {
    cwd: root,
    stdio: "inherit"
  })
  progress(`otlp: seed ${settings.customers.toLocaleString("en")} customers`)
  const seeded = await seed(join(dir, "otlp.db"), settings.customers)
  const collector = await collectorStub()
  const servers: Array<{ readonly variant: Variant; readonly running: Running }> = []
  const result = Object.fromEntries(OPERATIONS.map((op) => [op, { off: [], on: [] }])) as unknown as OtlpResult["load"]
  try {
    for (const variant of VARIANTS) {
      const file = join(dir, `otlp-${variant}.db`)
      copyFileSync(seeded.file, file)
      if (existsSync(`${seeded.file}.key`)) copyFileSync(`${seeded.file}.key`, `${file}.key`)
      const env: Record<string, string> = variant === "on" ? { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } : {}
      servers.push({ variant, running: await startServer("engine", file, progress, env) })
    }
    for (let round = 0; round < settings.rounds; round++) {
      for (const op of OPERATIONS) {
        for (let i = 0; i < servers.length; i++) {
          const { variant, running } = servers[(i + round) % servers.length]!
          const loaded = await loadWithCpu(running, settings, operationRequests(seeded)[op])
          const { cpuMicros } = loaded
          result[op][variant].push({ rps: loaded.rps, cpuMicros })
          progress(
            `  otlp round ${round + 1} ${op.padEnd(6)} ${variant.padEnd(3)} ${
              Math.round(loaded.rps).toString().padStart(6)
            } req/s, ${Number.isNaN(cpuMicros) ? "-" : Math.round(cpuMicros)} µs CPU per request`
          )
        }
      }
    }
  } finally {
    for (const { running } of servers) await stopServer(running)
    collector.close()
  }
  return { settings, load: result, collector: collector.stats }
}

export const otlpReport = (result: OtlpResult): string => {
  const lines = [
    "Tracing export on (OTLP to a collector stub on loopback) vs off (medians of the rounds; ratio = median of each round's on/off)"
  ]
  for (const op of OPERATIONS) {
    const { off, on } = result.load[op]
    const ratio = median(on.map((s, round) => s.rps / off[round]!.rps))
    const cpuRatio = median(on.map((s, round) => s.cpuMicros / off[round]!.cpuMicros))
    const row = (name: string, samples: ReadonlyArray<Sample>) => {
      const cpu = median(samples.map((s) => s.cpuMicros))
      return `  ${name} ${Math.round(median(samples.map((s) => s.rps))).toString().padStart(6)} req/s  ${
        Number.isNaN(cpu) ? "-" : `${Math.round(cpu)} µs CPU/request`
      }  rounds ${samples.map((s) => Math.round(s.rps)).join("/")}`
    }
    lines.push(
      `${op}: on/off ${ratio.toFixed(2)}x req/s, ${cpuRatio.toFixed(2)}x CPU per request`,
      row("off", off),
      row("on ", on)
    )
  }
  const c = result.collector
  lines.push(
    `collector: ${c.requests} exports, ${(c.bytes / 1_048_576).toFixed(1)} MB (${
      Object.entries(c.paths).map(([path, n]) => `${path} ${n}`).join(", ")
    })`
  )
  return lines.join("\n")
}
