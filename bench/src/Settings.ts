/** The command line of `pnpm bench` and the sizes of each phase (quick or full), shared by its phases. */
import { dirname, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"

export const here = dirname(fileURLToPath(import.meta.url))
export const root = resolve(here, "../..")
export const quick = process.argv.includes("--quick")
/** `--search`: only the search-at-scale phase (its seeds take minutes at 1,000,000 rows). */
export const searchOnly = process.argv.includes("--search")
/** `--ai`: only agent retrieval at 10,000 and 1,000,000 passages (AiRetrieval.ts). */
export const aiOnly = process.argv.includes("--ai")
/** `--replies`: only the AI reply loop's throughput at 100,000 passages (AiReplies.ts). */
export const repliesOnly = process.argv.includes("--replies")
/** `--fairness`: only fair webhook delivery: B's latency beside A's silent webhooks, writes with 20 (Fairness.ts). */
export const fairnessOnly = process.argv.includes("--fairness")
/** `--database-url URL`: the database of `--fairness` (an empty one; SQLite in a temporary directory by default). */
export const databaseUrl = (() => {
  const at = process.argv.indexOf("--database-url")
  return at === -1 ? undefined : process.argv[at + 1]
})()

export const settings = quick
  ? {
    customers: 100_000,
    inProcess: { ms: 600, maxOps: 200_000 },
    http: { rounds: 3, warmupMs: 400, measureMs: 900, connections: 50 },
    scaleSizes: [10_000, 100_000],
    searchSizes: [10_000, 100_000],
    scaleSamples: 150,
    startupSamples: 1,
    webhooks: { deliveries: 2_000, rounds: 1, memoryDeliveries: 2_000, concurrency: 16, sampleMs: 100 },
    builds: {
      customers: 100_000,
      rounds: 4,
      warmupMs: 500,
      measureMs: 1_500,
      connections: 50,
      stepRequests: 100,
      sequentialRequests: 500
    },
    otlp: { customers: 100_000, rounds: 4, warmupMs: 500, measureMs: 1_500, connections: 50 }
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
    builds: {
      customers: 100_000,
      rounds: 8,
      warmupMs: 500,
      measureMs: 2_000,
      connections: 50,
      stepRequests: 300,
      sequentialRequests: 1_000
    },
    otlp: { customers: 100_000, rounds: 8, warmupMs: 500, measureMs: 2_000, connections: 50 }
  }

export const started = performance.now()
export const progress = (message: string) =>
  process.stdout.write(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)}s] ${message}\n`)

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
