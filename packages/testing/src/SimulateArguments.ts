/**
 * `pnpm simulate`'s command line, read the same way by the watchdog (SimulateMain.ts) and the run (SimulateRun.ts):
 * `--seed N --steps K [--database-url URL] [--plant-bug B] [--no-crashes] [--no-shrink] [--full-check-every N]`, or
 * `--replay FILE`.
 */
import { readFileSync } from "node:fs"
import { DEFAULT_STEPS, PLANTED_BUGS, type PlantedBug, type SimulationOptions } from "./simulation/index.js"

export const argument = (name: string) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? undefined : process.argv[at + 1]
}
export const flag = (name: string) => process.argv.includes(`--${name}`)

/** What `--replay` runs: a recorded (usually shrunk) run. */
export interface ReplayFile {
  readonly seed: number
  readonly stepSeeds: ReadonlyArray<number>
  readonly plantBug?: PlantedBug
  readonly crashes: boolean
}

export const replayPath = argument("replay")
export const replay = replayPath === undefined
  ? undefined
  : JSON.parse(readFileSync(replayPath, "utf8")) as ReplayFile
export const databaseUrl = argument("database-url")

const plant = argument("plant-bug")
const plantBug = replay?.plantBug ?? plant as PlantedBug | undefined
const crashes = replay?.crashes ?? !flag("no-crashes")

/** The flags a replay command repeats. */
export const flags = [
  databaseUrl === undefined ? "" : ` --database-url ${databaseUrl}`,
  plantBug === undefined ? "" : ` --plant-bug ${plantBug}`,
  crashes === false ? " --no-crashes" : ""
].join("")

/** The run's options, or undefined after saying on stderr what is wrong with the command line. */
export const parseArguments = (): SimulationOptions | undefined => {
  if (plant !== undefined && !(PLANTED_BUGS as ReadonlyArray<string>).includes(plant)) {
    process.stderr.write(`--plant-bug: one of ${PLANTED_BUGS.join(", ")}\n`)
    return undefined
  }
  return {
    seed: replay?.seed ?? Number(argument("seed") ?? 1),
    steps: replay?.stepSeeds.length ?? Number(argument("steps") ?? DEFAULT_STEPS),
    databaseUrl,
    crashes,
    plantBug,
    stepSeeds: replay?.stepSeeds,
    fullCheckEvery: argument("full-check-every") === undefined ? undefined : Number(argument("full-check-every"))
  }
}
