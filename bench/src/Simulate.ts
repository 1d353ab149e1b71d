/**
 * `pnpm bench --simulate`: the simulator's speed. One seed, 10,000 steps (2,000 with --quick), on a
 * SQLite file with crashes on, every check of every step included; wall time and CPU time of the whole run (the
 * final day of simulated time and its checks too), and the trace hash, which a second run must repeat. The run has a
 * process of its own, started as `pnpm simulate` starts one (SimulateChild.ts).
 */
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { here, root } from "./Settings.js"

export interface SimulateResult {
  readonly steps: number
  readonly seconds: number
  readonly cpuSeconds: number
  readonly ok: boolean
  readonly hash: string
}

/**
 * The node flags `pnpm simulate` runs with (package.json): a young generation of 64 MB semi-spaces, where the
 * default's smaller ones have the collector copy the engine's short-lived objects far more often
 * (docs/performance.md). A flag of the process, so the run gets a process of its own.
 */
export const SIMULATOR_NODE_FLAGS: ReadonlyArray<string> = ["--max-semi-space-size=64"]

export const simulateBench = (
  steps: number,
  progress: (line: string) => void,
  seed = 1
): SimulateResult => {
  progress(`simulate: seed ${seed}, ${steps.toLocaleString("en")} steps on a SQLite file, crashes on`)
  const out = execFileSync(
    process.execPath,
    [...SIMULATOR_NODE_FLAGS, "--import", "tsx", join(here, "SimulateChild.ts"), String(steps), String(seed)],
    { cwd: root, stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 20 }
  )
  return JSON.parse(out.toString().trim().split("\n").pop()!) as SimulateResult
}

export const simulateReport = (r: SimulateResult): string =>
  [
    `simulate: ${r.steps.toLocaleString("en")} steps in ${r.seconds.toFixed(1)} s wall, ${
      r.cpuSeconds.toFixed(1)
    } s CPU`,
    `  ${(1000 * r.seconds / r.steps).toFixed(2)} ms per step; ${r.ok ? "ok" : "FAILED"} ${r.hash}`
  ].join("\n")
