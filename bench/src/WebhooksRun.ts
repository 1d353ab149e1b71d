/**
 * The webhook phase alone, for working on the dispatcher: `node --import tsx bench/src/WebhooksRun.ts [--quick]
 * [--deliveries=N] [--rounds=N] [--memory=N] [--concurrency=N] [--sample-ms=N] [--modes=engine,raw-batch]
 * [--profile=<dir>]`. `--profile` writes each drain's `--cpu-prof` profile to that directory. `pnpm bench` runs the
 * same phase among the others.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { webhookPhase, webhookReport } from "./Webhooks.js"
import type { DrainMode } from "./WebhooksDrain.js"

const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
const quick = process.argv.includes("--quick")
const deliveries = Number(option("deliveries") ?? (quick ? 5_000 : 50_000))
const started = performance.now()
const progress = (message: string) =>
  process.stdout.write(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)}s] ${message}\n`)

const dir = mkdtempSync(join(tmpdir(), "support-bench-webhooks-"))
try {
  const result = await webhookPhase(dir, {
    deliveries,
    rounds: Number(option("rounds") ?? 1),
    memoryDeliveries: Number(option("memory") ?? deliveries),
    concurrency: Number(option("concurrency") ?? 16),
    sampleMs: Number(option("sample-ms") ?? 250),
    cpuProfileDir: option("profile"),
    modes: option("modes")?.split(",") as Array<DrainMode> | undefined
  }, progress)
  process.stdout.write(`\n${webhookReport(result)}\n`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
