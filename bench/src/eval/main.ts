/**
 * `pnpm eval [--provider local|openai|anthropic] [--database-url URL] [--limit N] [--verbose]`: the labelled
 * question set against the agent's retrieval and model (Eval.ts). SQLite in a temporary file by default;
 * `--database-url postgres://…` runs it on PostgreSQL (a new workspace each run). A remote provider needs its key
 * (`SUPPORT_OPENAI_API_KEY`, `SUPPORT_ANTHROPIC_API_KEY`) and takes its model from `SUPPORT_DEFAULT_AGENT_MODEL`.
 */
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { runEval } from "./Eval.js"

const { values } = parseArgs({
  options: {
    provider: { type: "string", default: "local" },
    "database-url": { type: "string" },
    limit: { type: "string" },
    verbose: { type: "boolean", default: false }
  }
})
const provider = values.provider
const keys: Record<string, string> = { openai: "SUPPORT_OPENAI_API_KEY", anthropic: "SUPPORT_ANTHROPIC_API_KEY" }
if (provider !== "local" && keys[provider] === undefined) {
  process.stderr.write(`eval: unknown provider ${provider} (local, openai or anthropic)\n`)
  process.exit(2)
}
if (provider !== "local" && !process.env[keys[provider]!]) {
  process.stderr.write(`eval: --provider ${provider} needs ${keys[provider]}\n`)
  process.exit(2)
}
const limit = values.limit === undefined ? undefined : Number(values.limit)
if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
  process.stderr.write("eval: --limit must be a positive integer\n")
  process.exit(2)
}
// The engine reads its provider from the environment, as a server does.
process.env["SUPPORT_AI_PROVIDER"] = provider
const dir = values["database-url"] === undefined ? mkdtempSync(join(tmpdir(), "support-engine-eval-")) : undefined
const databaseUrl = values["database-url"] ?? `file:${join(dir!, "eval.db")}`

const started = performance.now()
Effect.runPromise(runEval({
  provider,
  databaseUrl,
  limit,
  verbose: values.verbose,
  log: (line) => process.stdout.write(`${line}\n`)
})).then(
  () => {
    process.stderr.write(`eval: ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
  },
  (error: unknown) => {
    process.stderr.write(`eval failed: ${String(error)}\n`)
    process.exitCode = 1
  }
).finally(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})
