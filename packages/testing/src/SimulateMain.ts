/**
 * `pnpm simulate --seed N --steps K [--database-url URL] [--plant-bug B] [--no-crashes] [--shrink]`, or
 * `pnpm simulate --replay FILE`: runs a simulation (simulation/Run.ts). The last line is
 * `simulation ok: seed=N steps=K trace=<sha256>` (exit 0) or `simulation failed: seed=N step=S <invariant>` after
 * the trace and the command that replays it (exit 1, D54). A failing run is shrunk first (unless `--no-shrink`), and
 * the shortest run found is written to a file that `--replay` runs again.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  DEFAULT_STEPS,
  PLANTED_BUGS,
  type PlantedBug,
  shrink,
  simulate,
  type SimulationOptions
} from "./simulation/index.js"

const argument = (name: string) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? undefined : process.argv[at + 1]
}
const flag = (name: string) => process.argv.includes(`--${name}`)

interface ReplayFile {
  readonly seed: number
  readonly stepSeeds: ReadonlyArray<number>
  readonly plantBug?: PlantedBug
  readonly crashes: boolean
}

const replayPath = argument("replay")
const replay = replayPath === undefined ? undefined : JSON.parse(readFileSync(replayPath, "utf8")) as ReplayFile
const plant = argument("plant-bug")
if (plant !== undefined && !(PLANTED_BUGS as ReadonlyArray<string>).includes(plant)) {
  process.stderr.write(`--plant-bug: one of ${PLANTED_BUGS.join(", ")}\n`)
  process.exit(2)
}
const databaseUrl = argument("database-url")
const options: SimulationOptions = {
  seed: replay?.seed ?? Number(argument("seed") ?? 1),
  steps: replay?.stepSeeds.length ?? Number(argument("steps") ?? DEFAULT_STEPS),
  databaseUrl,
  crashes: replay?.crashes ?? !flag("no-crashes"),
  plantBug: replay?.plantBug ?? plant as PlantedBug | undefined,
  stepSeeds: replay?.stepSeeds,
  fullCheckEvery: argument("full-check-every") === undefined ? undefined : Number(argument("full-check-every"))
}

const flags = [
  databaseUrl === undefined ? "" : ` --database-url ${databaseUrl}`,
  options.plantBug === undefined ? "" : ` --plant-bug ${options.plantBug}`,
  options.crashes === false ? " --no-crashes" : ""
].join("")

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
