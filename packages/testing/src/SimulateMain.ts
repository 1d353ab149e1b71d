/**
 * `pnpm simulate --seed N --steps K [--database-url URL]`: runs the simulation and prints its trace hash. The last
 * line is `simulation ok: seed=N steps=K trace=<sha256>` (exit 0) or `simulation failed: seed=N step=S <invariant>`
 * followed by the command that replays it (exit 1).
 */
import { simulate } from "./Simulation.js"

const argument = (name: string) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? undefined : process.argv[at + 1]
}
const seed = Number(argument("seed") ?? 1)
const steps = Number(argument("steps") ?? 200)
const databaseUrl = argument("database-url")
const plant = argument("plant-bug") === "drop-signature" ? "drop-signature" as const : undefined

const result = await simulate({ seed, steps, ...(databaseUrl ? { databaseUrl } : {}), plantBug: plant })
if (result._tag === "Ok") {
  process.stdout.write(`simulation ok: seed=${seed} steps=${steps} trace=${result.hash}\n`)
} else {
  process.stdout.write(result.trace)
  process.stdout.write(`replay: pnpm simulate --seed ${seed} --steps ${result.step}\n`)
  process.stdout.write(`simulation failed: seed=${seed} step=${result.step} ${result.invariant}\n`)
  process.exitCode = 1
}
