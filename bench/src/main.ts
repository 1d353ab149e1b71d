/**
 * `pnpm bench [--quick]`: support-engine beside a hand-written node:http + better-sqlite3 server and a
 * Fastify 5 one, in-process and over HTTP, at scale and at start-up, and its webhook dispatcher beside a raw
 * loop. Prints a progress line per phase and a table, and writes a JSON result file
 * (bench/results/<timestamp>.json) so two runs can be compared.
 * `--soak [--database sqlite|postgres] [--period N] [--duration N]` instead runs the retention soak (Soak.ts).
 * `--otlp` instead compares the engine server with tracing export on and off (Otlp.ts).
 * `--builds name=checkout ...` instead loads the engine servers of several checkouts side by side (Builds.ts).
 * Benchmarks report; nothing here fails on a figure.
 */
import { execSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { cpus, freemem, tmpdir, totalmem } from "node:os"
import { join } from "node:path"
import { repliesReport, repliesThroughput } from "./AiReplies.js"
import { retrievalLatency, retrievalReport } from "./AiRetrieval.js"
import { buildsOf, buildsPhase, buildsReport } from "./Builds.js"
import { fairnessPhase, fairnessReport } from "./Fairness.js"
import { httpPhase, type HttpResult, startupPhase } from "./HttpPhase.js"
import { inProcess, scaleLatency, type ScaleResult } from "./InProcess.js"
import { report } from "./Report.js"
import { searchPhase, searchReport } from "./SearchPhase.js"
import { seed, type Seeded } from "./Seed.js"
import { buildServers } from "./Servers.js"
import {
  aiOnly,
  databaseUrl,
  fairnessOnly,
  here,
  progress,
  quick,
  repliesOnly,
  root,
  searchOnly,
  settings
} from "./Settings.js"
import { simulateBench, simulateReport } from "./Simulate.js"
import { webhookPhase, type WebhookResult } from "./Webhooks.js"

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
      process.stdout.write(`\n${simulateReport(simulateBench(quick ? 2_000 : 10_000, progress))}\n`)
      return
    }
    if (process.argv.includes("--soak")) {
      const { soakOptions, soakPhase, soakReport } = await import("./Soak.js")
      const soak = await soakPhase(soakOptions(process.argv), progress)
      process.stdout.write(`\n${soakReport(soak)}\n`)
      const resultsDir = join(here, "..", "results")
      mkdirSync(resultsDir, { recursive: true })
      const file = join(
        resultsDir,
        `${new Date().toISOString().replace(/[:.]/g, "-")}-soak-${soak.options.database}.json`
      )
      writeFileSync(file, JSON.stringify({ mode: "soak", machine, soak }, null, 2))
      progress(`done; results in ${file}`)
      return
    }
    if (process.argv.includes("--otlp")) {
      const { otlpPhase, otlpReport } = await import("./Otlp.js")
      const otlp = await otlpPhase(dir, settings.otlp, progress)
      process.stdout.write(`\n${otlpReport(otlp)}\n`)
      const resultsDir = join(here, "..", "results")
      mkdirSync(resultsDir, { recursive: true })
      const file = join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, "-")}-otlp.json`)
      writeFileSync(file, JSON.stringify({ mode: "otlp", machine, otlp }, null, 2))
      progress(`done; results in ${file}`)
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
      const results = await retrievalLatency(dir, quick ? [10_000, 100_000] : [10_000, 1_000_000], 200, 5, progress)
      process.stdout.write(`\n${retrievalReport(results)}\n`)
      return
    }
    if (repliesOnly) {
      progress("replies: 100,000 passages")
      process.stdout.write(`\n${repliesReport(await repliesThroughput(dir, 100_000, quick ? 500 : 2_000))}\n`)
      return
    }
    const builds = buildsOf(process.argv)
    if (builds.length > 0) {
      const result = await buildsPhase(builds, dir, settings.builds, progress)
      process.stdout.write(`\n${buildsReport(result)}\n`)
      const resultsDir = join(here, "..", "results")
      mkdirSync(resultsDir, { recursive: true })
      const file = join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, "-")}-builds.json`)
      writeFileSync(file, JSON.stringify({ mode: "builds", machine, builds, result }, null, 2))
      progress(`done; results in ${file}`)
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

await main()
