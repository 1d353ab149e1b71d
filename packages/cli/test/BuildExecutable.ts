/**
 * Vitest global setup for the CLI tests: bundles `dist/bin/support-engine.mjs` once, as `pnpm start` and `pnpm cli` do
 * before they run it, so the tests drive the very file users run.
 */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL("../build.mjs", import.meta.url))], { stdio: "inherit" })
}
