/**
 * One measured simulation in a process of its own (Simulate.ts starts it with the node flags `pnpm simulate` runs
 * with): wall and CPU time around `simulate` alone, as before, printed as one line of JSON.
 */
import { simulate } from "@support-engine/testing"

const steps = Number(process.argv[2])
const seed = Number(process.argv[3] ?? 1)
const cpu = process.cpuUsage()
const started = performance.now()
const result = await simulate({ seed, steps })
const seconds = (performance.now() - started) / 1000
const used = process.cpuUsage(cpu)
process.stdout.write(`${
  JSON.stringify({
    steps,
    seconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    ok: result._tag === "Ok",
    hash: result._tag === "Ok" ? result.hash : `failed at step ${result.step}: ${result.invariant}`
  })
}\n`)
