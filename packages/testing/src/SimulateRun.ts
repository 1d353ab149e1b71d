/**
 * The simulation itself, run by `pnpm simulate` (SimulateMain.ts) in a child process that reports each step to its
 * parent, whose watchdog ends a run that stops making progress. The last line is
 * `simulation ok: seed=N steps=K trace=<sha256>` (exit 0) or `simulation failed: seed=N step=S <invariant>` after
 * the trace and the command that replays it (exit 1). A failing run is shrunk first (unless `--no-shrink`), and the
 * shortest run found is written to a file that `--replay` runs again.
 */
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  argument,
  databaseUrl,
  flag,
  flags,
  parseArguments,
  replay,
  type ReplayFile,
  replayPath
} from "./SimulateArguments.js"
import { shrink, simulate, type SimulationOptions } from "./simulation/index.js"

const parsed = parseArguments()
if (parsed === undefined) process.exit(2)
// `--stall-at-step N` stands in for a bug that never yields (a step that spins forever), to show the watchdog ends it.
const stallAt = argument("stall-at-step") === undefined ? undefined : Number(argument("stall-at-step"))
// Each step started is reported to the parent's watchdog (SimulateMain.ts); run alone, there is no parent.
const options: SimulationOptions = {
  ...parsed,
  onStep: (step) => {
    process.send?.({ step })
    if (step === stallAt) { for (;;); }
  }
}

// Interrupted (Ctrl-C, a kill): exit the ordinary way, so the run's scratch database is removed (EngineHost.ts).
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130))

const result = await simulate(options)
if (result._tag === "Ok") {
  if (flag("print-trace")) process.stdout.write(result.trace)
  process.stdout.write(`simulation ok: seed=${options.seed} steps=${result.stepSeeds.length} trace=${result.hash}\n`)
} else {
  let failed = result
  let command = replay === undefined
    ? `pnpm simulate --seed ${options.seed} --steps ${failed.step}${flags}`
    : `pnpm simulate --replay ${replayPath}${databaseUrl === undefined ? "" : ` --database-url ${databaseUrl}`}`
  if (!flag("no-shrink") && failed.step > 1) {
    // Shrinking reruns the failing run up to 150 times, minutes for a long one: say so, or it looks like a hang.
    process.stderr.write(
      `simulation failed at step ${failed.step} (${failed.invariant}); shrinking it (--no-shrink skips this)\n`
    )
    process.send?.({ shrinking: failed.step })
    const shrunk = await shrink(options, failed)
    if (shrunk.result.step < failed.step) {
      failed = shrunk.result
      const file = join(tmpdir(), `simulation-${options.seed}-${failed.step}.json`)
      const saved: ReplayFile = {
        seed: options.seed,
        stepSeeds: failed.stepSeeds,
        crashes: options.crashes !== false,
        ...(options.plantBug === undefined ? {} : { plantBug: options.plantBug })
      }
      writeFileSync(file, JSON.stringify(saved))
      process.stdout.write(`shrunk from ${result.step} to ${failed.step} steps in ${shrunk.runs} runs\n`)
      command = `pnpm simulate --replay ${file}${databaseUrl === undefined ? "" : ` --database-url ${databaseUrl}`}`
    }
  }
  process.stdout.write(failed.trace)
  process.stdout.write(`simulation failed: seed=${options.seed} step=${failed.step} ${failed.invariant}\n`)
  process.stdout.write(`${command}\n`)
  process.exitCode = 1
}
