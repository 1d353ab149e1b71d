/** The table printed at the end of a full `pnpm bench` run (in-process, HTTP, scale, start-up, webhooks). */
import type { HttpResult, StartupResult } from "./HttpPhase.js"
import { type InProcessResult, type Operation, OPERATIONS, type ScaleResult } from "./InProcess.js"
import { SERVERS } from "./Servers.js"
import { settings } from "./Settings.js"
import { webhookReport, type WebhookResult } from "./Webhooks.js"

export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits }) : "-"
export const ratio = (a: number, b: number) => Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : "-"

export const table = (headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n")
}

export const LABEL: Record<Operation, string> = {
  get: "GET /v1/customers/{id}",
  list: "GET /v1/customers?per_page=15&page=N",
  create: "POST /v1/conversations"
}

export const report = (results: {
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
        " each server's CPU per request; floor = HttpApi alone with fixed answers)"
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
        "fastify p50/p99",
        "CPU µs/req engine/raw/fastify/floor",
        "CPU engine/floor"
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
        `${fmt(h[op].fastify.p50, 2)}/${fmt(h[op].fastify.p99, 2)}`,
        SERVERS.map((kind) => fmt(h[op][kind].cpuMicros)).join("/"),
        ratio(h[op].engine.cpuMicros, h[op].floor.cpuMicros)
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
