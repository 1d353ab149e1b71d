/**
 * `pnpm bench --simulate` (issue 19 item 4): the simulator's speed. One seed, 10,000 steps (2,000 with --quick), on a
 * SQLite file with crashes on, every check of every step included; wall time and CPU time of the whole run (the
 * final day of simulated time and its checks too), and the trace hash, which a second run must repeat.
 */
import { simulate } from "@support-engine/testing"

export interface SimulateResult {
  readonly steps: number
  readonly seconds: number
  readonly cpuSeconds: number
  readonly ok: boolean
  readonly hash: string
}

export const simulateBench = async (
  steps: number,
  progress: (line: string) => void,
  seed = 1
): Promise<SimulateResult> => {
  progress(`simulate: seed ${seed}, ${steps.toLocaleString("en")} steps on a SQLite file, crashes on`)
  const cpu = process.cpuUsage()
  const started = performance.now()
  const result = await simulate({ seed, steps })
  const seconds = (performance.now() - started) / 1000
  const used = process.cpuUsage(cpu)
  return {
    steps,
    seconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    ok: result._tag === "Ok",
    hash: result._tag === "Ok" ? result.hash : `failed at step ${result.step}: ${result.invariant}`
  }
}

export const simulateReport = (r: SimulateResult): string =>
  [
    `simulate: ${r.steps.toLocaleString("en")} steps in ${r.seconds.toFixed(1)} s wall, ${
      r.cpuSeconds.toFixed(1)
    } s CPU`,
    `  ${(1000 * r.seconds / r.steps).toFixed(2)} ms per step; ${r.ok ? "ok" : "FAILED"} ${r.hash}`
  ].join("\n")
