/**
 * The webhook phase: deliveries per second draining a queue of pending deliveries to a local receiver
 * that answers 200, through the engine's dispatcher and through a hand-written loop in the same run, and the
 * dispatcher's heap and RSS before, during and after draining a larger queue.
 *
 * The receiver (`WebhooksReceiver.ts`) and each drain (`WebhooksDrain.ts`) run in their own processes: the sender
 * is the one being measured, and its memory figures hold nothing of this process. Every drain starts from a copy of
 * one seeded file: one workspace and one webhook made through the services, then events and their pending
 * deliveries bulk-inserted in one transaction, as the outbox would have left them.
 */
import {
  Actor,
  CreateWebhook,
  CreateWorkspace,
  Principal,
  type PrincipalShape,
  Webhooks,
  Workspaces
} from "@support-engine/core"
import { supportEngineLayer } from "@support-engine/engine"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { type ChildProcess, fork } from "node:child_process"
import { randomUUID } from "node:crypto"
import { copyFileSync, existsSync, rmSync } from "node:fs"
import { loadavg } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { customerFields } from "./Fixtures.js"
import type { DrainMode, DrainReport, DrainRequest } from "./WebhooksDrain.js"

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, "..", "..")

export interface WebhookSettings {
  /** Pending deliveries each throughput drain starts with. */
  readonly deliveries: number
  /** Throughput rounds; each runs every sender once, in a rotated order. Figures are medians. */
  readonly rounds: number
  /** Pending deliveries of the dispatcher's memory drain (the throughput drain's figures when equal). */
  readonly memoryDeliveries: number
  /** Attempts in flight, for the dispatcher (`SUPPORT_WEBHOOK_CONCURRENCY`) and the raw loop alike. */
  readonly concurrency: number
  readonly sampleMs: number
  /** A directory to write each drain's `--cpu-prof` profile to. */
  readonly cpuProfileDir?: string | undefined
  /** The drains to run (all when absent), for working on one of them. */
  readonly modes?: ReadonlyArray<DrainMode> | undefined
}

export interface Memory {
  readonly heapUsed: number
  readonly rss: number
}

export interface DrainSummary {
  readonly deliveries: number
  readonly delivered: number
  /** Requests the receiver counted during the drain (more than `delivered` would mean a duplicate). */
  readonly received: number
  readonly elapsedMs: number
  readonly perSecond: number
  readonly before: Memory
  readonly peak: Memory
  readonly after: Memory
  /** After a full collection at 25, 50 and 75% of the drain (the memory drain only): what stays reachable. */
  readonly live: ReadonlyArray<Memory>
}

export interface WebhookResult {
  readonly settings: WebhookSettings
  /** One-minute load average before and after the phase. */
  readonly load: { readonly before: number; readonly after: number }
  /** Per sender, the round with the median rate. */
  readonly throughput: Partial<Record<DrainMode, DrainSummary>>
  /** Per round, each sender's deliveries per second. */
  readonly rounds: ReadonlyArray<Partial<Record<DrainMode, number>>>
  readonly memory: DrainSummary | undefined
}

/** A customer.created payload as the engine records it: the customer in its API form. */
const customerData = (i: number, at: string) => JSON.stringify({ ...customerFields(i, at), id: randomUUID() })

const BASE = Date.UTC(2024, 0, 1)
/** Deliveries per transaction in the raw loop's batched variant. */
export const RAW_BATCH = 100

/** A database with one webhook on `url` and `count` pending deliveries to it, due in the past. */
export const seedDeliveries = async (file: string, url: string, count: number): Promise<void> => {
  const services = supportEngineLayer({
    databaseUrl: `file:${file}`,
    dispatcher: false,
    webhooks: { allowPrivate: true }
  })
  const { webhookId, workspaceId } = await Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name: "Bench webhooks" }))
    const principal: PrincipalShape = {
      workspaceId: workspace.id,
      organizationId: workspace.organization_id,
      abilities: ["external-api:write"],
      actor: Actor.system
    }
    const webhook = yield* (yield* Webhooks).create(new CreateWebhook({ url, events: ["*"] })).pipe(
      Effect.provideService(Principal, principal)
    )
    return { workspaceId: workspace.id, webhookId: webhook.id }
  }).pipe(Effect.provide(services), Effect.runPromise)

  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  const insertEvent = db.prepare(
    `INSERT INTO events (id, workspace_id, event, occurred_at, actor_type, actor_id, data)
     VALUES (?, ?, 'customer.created', ?, 'api_token', ?, ?)`
  )
  const insertDelivery = db.prepare(
    `INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, event, status, attempts, round_attempts,
       next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'customer.created', 'pending', 0, 0, ?, ?, ?)`
  )
  const tokenId = randomUUID()
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      // One millisecond apart: distinct due times, in the order the outbox would have written them.
      const at = new Date(BASE + i).toISOString()
      const eventId = randomUUID()
      insertEvent.run(eventId, workspaceId, at, tokenId, customerData(i, at.replace(/Z$/, "+00:00")))
      insertDelivery.run(randomUUID(), workspaceId, webhookId, eventId, at, at, at)
    }
    db.prepare(
      `INSERT INTO workspace_counters (workspace_id, name, value) VALUES (?, ?, ?)
       ON CONFLICT (workspace_id, name) DO UPDATE SET value = excluded.value`
    ).run(workspaceId, `webhook_deliveries:${webhookId}`, count)
  })()
  db.pragma("wal_checkpoint(TRUNCATE)")
  db.close()
}

interface Receiver {
  readonly url: string
  readonly count: () => Promise<number>
  readonly stop: () => void
}

const startReceiver = () =>
  new Promise<Receiver>((resolve, reject) => {
    const child = fork(join(here, "WebhooksReceiver.ts"), [], {
      cwd: root,
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "ignore", "inherit", "ipc"]
    })
    child.once("error", reject)
    child.once("message", (message) => {
      const { port } = message as { port: number }
      resolve({
        url: `http://127.0.0.1:${port}/hook`,
        count: () =>
          new Promise((ok) => {
            child.once("message", (reply) => ok((reply as { count: number }).count))
            child.send("count")
          }),
        stop: () => child.disconnect()
      })
    })
  })

const runDrain = (request: DrainRequest, cpuProfileDir: string | undefined) =>
  new Promise<DrainReport>((resolve, reject) => {
    const profile = cpuProfileDir !== undefined
      ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfileDir}`]
      : []
    const child: ChildProcess = fork(join(here, "WebhooksDrain.ts"), [JSON.stringify(request)], {
      cwd: root,
      execArgv: ["--expose-gc", ...profile, "--import", "tsx"],
      env: {
        ...process.env,
        // The receiver is on loopback, which only private targets allowed reach, and the dispatcher keeps as many
        // attempts in flight as the raw loop.
        SUPPORT_WEBHOOK_ALLOW_PRIVATE: "true",
        SUPPORT_WEBHOOK_CONCURRENCY: String(request.concurrency)
      },
      // stdout carries the engine's log lines (one per attempt); the report comes over IPC.
      stdio: ["ignore", "ignore", "inherit", "ipc"]
    })
    let report: DrainReport | undefined
    const timer = setTimeout(() => child.kill("SIGKILL"), 10 * 60_000)
    child.once("message", (message) => {
      report = message as DrainReport
    })
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      if (report !== undefined) resolve(report)
      else reject(new Error(`webhook drain ${request.mode} exited (${code ?? signal}) without a report`))
    })
  })

const summarize = (report: DrainReport, received: number): DrainSummary => {
  const peak = {
    heapUsed: Math.max(report.before.heapUsed, ...report.samples.map((s) => s.heapUsed)),
    rss: Math.max(report.before.rss, ...report.samples.map((s) => s.rss))
  }
  return {
    deliveries: report.count,
    delivered: report.delivered,
    received,
    elapsedMs: report.elapsedMs,
    perSecond: report.perSecond,
    before: report.before,
    peak,
    after: report.after,
    live: report.live.map(({ heapUsed, rss }) => ({ heapUsed, rss }))
  }
}

export const MODES: ReadonlyArray<DrainMode> = ["raw-single", "engine", "raw-batch"]

export const webhookPhase = async (
  dir: string,
  settings: WebhookSettings,
  progress: (message: string) => void
): Promise<WebhookResult> => {
  const loadBefore = loadavg()[0]!
  const receiver = await startReceiver()
  try {
    const drain = async (
      mode: DrainMode,
      template: string,
      count: number,
      collectAtQuarters: boolean
    ): Promise<DrainSummary> => {
      const file = join(dir, `webhooks-${mode}-${count}.db`)
      copyFileSync(template, file)
      // The webhook's secret is encrypted with the key file beside the database (docs/configuration.md): a copy of
      // the database needs its key too.
      if (existsSync(`${template}.key`)) copyFileSync(`${template}.key`, `${file}.key`)
      const receivedBefore = await receiver.count()
      const report = await runDrain(
        {
          mode,
          file,
          count,
          concurrency: settings.concurrency,
          batch: RAW_BATCH,
          sampleMs: settings.sampleMs,
          collectAtQuarters
        },
        settings.cpuProfileDir
      )
      const summary = summarize(report, (await receiver.count()) - receivedBefore)
      rmSync(file, { force: true })
      rmSync(`${file}.key`, { force: true })
      progress(
        `  webhooks ${mode.padEnd(10)} ${summary.delivered.toLocaleString("en")} delivered in ` +
          `${(summary.elapsedMs / 1000).toFixed(1)} s: ${summary.perSecond.toFixed(0)}/s; heap ` +
          `${mb(summary.before.heapUsed)} -> peak ${mb(summary.peak.heapUsed)} -> ${mb(summary.after.heapUsed)} MB`
      )
      return summary
    }

    progress(`webhooks: seed ${settings.deliveries.toLocaleString("en")} pending deliveries`)
    const template = join(dir, "webhooks-template.db")
    await seedDeliveries(template, receiver.url, settings.deliveries)
    const modes = settings.modes ?? MODES
    const runs: Partial<Record<DrainMode, Array<DrainSummary>>> = {}
    const rounds: Array<Partial<Record<DrainMode, number>>> = []
    for (let round = 0; round < settings.rounds; round++) {
      // Rotate the order so that drift on a shared machine does not favour one sender.
      const order = modes.map((_, i) => modes[(i + round) % modes.length]!)
      const rates: Partial<Record<DrainMode, number>> = {}
      for (const mode of order) {
        // Without a separate memory drain, the dispatcher's throughput drain also takes the memory readings.
        const collect = mode === "engine" && round === 0 && settings.memoryDeliveries === settings.deliveries
        const summary = await drain(mode, template, settings.deliveries, collect)
        ;(runs[mode] ??= []).push(summary)
        rates[mode] = summary.perSecond
      }
      rounds.push(rates)
    }
    const throughput: Partial<Record<DrainMode, DrainSummary>> = {}
    for (const mode of modes) {
      const sorted = [...runs[mode]!].sort((a, b) => a.perSecond - b.perSecond)
      throughput[mode] = sorted[Math.floor((sorted.length - 1) / 2)]!
    }

    let memory = runs.engine?.[0]
    if (modes.includes("engine") && settings.memoryDeliveries !== settings.deliveries) {
      progress(`webhooks: seed ${settings.memoryDeliveries.toLocaleString("en")} pending deliveries (memory)`)
      const large = join(dir, "webhooks-memory-template.db")
      await seedDeliveries(large, receiver.url, settings.memoryDeliveries)
      memory = await drain("engine", large, settings.memoryDeliveries, true)
      rmSync(large, { force: true })
      rmSync(`${large}.key`, { force: true })
    }
    rmSync(template, { force: true })
    rmSync(`${template}.key`, { force: true })
    return { settings, load: { before: loadBefore, after: loadavg()[0]! }, throughput, rounds, memory }
  } finally {
    receiver.stop()
  }
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1)

const LABEL: Record<DrainMode, string> = {
  engine: "engine (DispatcherLive)",
  "raw-single": "raw, one by one",
  "raw-batch": `raw, batches of ${RAW_BATCH}`
}

/** The phase's part of the report. */
export const webhookReport = (result: WebhookResult): string => {
  const t = result.throughput
  const ratio = (a: number, b: number | undefined) => b === undefined ? "-" : `${(a / b).toFixed(2)}x`
  const rows = MODES.flatMap((mode) => {
    const s = t[mode]
    if (s === undefined) return []
    return [[
      LABEL[mode],
      s.perSecond.toLocaleString("en", { maximumFractionDigits: 0 }),
      ratio(s.perSecond, t["raw-single"]?.perSecond),
      ratio(s.perSecond, t["raw-batch"]?.perSecond),
      `${s.delivered}/${s.received}`,
      `${mb(s.before.heapUsed)}/${mb(s.peak.heapUsed)}/${mb(s.after.heapUsed)}`,
      `${mb(s.before.rss)}/${mb(s.peak.rss)}/${mb(s.after.rss)}`
    ]]
  })
  const { concurrency, deliveries, rounds } = result.settings
  const lines = [
    `Webhooks (${deliveries.toLocaleString("en")} pending deliveries to a local receiver, ${concurrency} in flight, ` +
    `median of ${rounds} round${rounds === 1 ? "" : "s"}; load average ${result.load.before.toFixed(1)} -> ` +
    `${result.load.after.toFixed(1)})`,
    textTable(
      [
        "sender",
        "deliveries/s",
        "/raw one by one",
        "/raw batches",
        "marked/received",
        "heap MB before/peak/after",
        "RSS MB before/peak/after"
      ],
      rows
    )
  ]
  const perRound = (base: DrainMode) =>
    result.rounds.flatMap((r) =>
      r.engine !== undefined && r[base] !== undefined ? [(r.engine / r[base]).toFixed(2)] : []
    ).join(", ")
  if (result.rounds.length > 1 && t.engine !== undefined) {
    lines.push(
      `engine per round: ${perRound("raw-single")} of raw one by one; ${perRound("raw-batch")} of raw batches`
    )
  }
  const m = result.memory
  if (m !== undefined) {
    const at = (m: Memory | undefined, key: keyof Memory) => m === undefined ? "-" : mb(m[key])
    const row = (key: keyof Memory) => [
      key === "heapUsed" ? "heap" : "RSS",
      mb(m.before[key]),
      ...[0, 1, 2].map((i) => at(m.live[i], key)),
      mb(m.after[key]),
      mb(m.peak[key])
    ]
    lines.push(
      `\nDispatcher memory draining ${m.deliveries.toLocaleString("en")} (MB, after a full collection, except the ` +
        `highest sample; ${m.perSecond.toFixed(0)} deliveries/s)`,
      textTable(["", "before", "at 25%", "at 50%", "at 75%", "after", "highest sampled"], [row("heapUsed"), row("rss")])
    )
  }
  return lines.join("\n")
}

const textTable = (headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n")
}
