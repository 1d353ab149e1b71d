/**
 * `pnpm simulate`: runs the simulation (SimulateRun.ts) in a child process and watches it. The child reports every
 * step it starts; when none comes for `--watchdog-seconds` (default 120) the run has stopped making progress (a
 * loop that never yields, or one that never ends), and the watchdog ends it as a failed run: the failure line,
 * `simulation failed: seed=N step=S no progress for Ns (watchdog)`, then the command that replays it, exit 1.
 * The child's output passes through unchanged, and so does its exit code.
 */
import { fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import { argument, flags, replay, replayPath } from "./SimulateArguments.js"

const seconds = Number(argument("watchdog-seconds") ?? 120)
const seed = replay?.seed ?? Number(argument("seed") ?? 1)

const child = fork(fileURLToPath(new URL("./SimulateRun.ts", import.meta.url)), process.argv.slice(2), {
  stdio: ["inherit", "inherit", "inherit", "ipc"]
})
let step = 0
let shrinkingFrom: number | undefined
let lastProgress = Date.now()
let stuck = false
child.on("message", (message: { readonly step?: number; readonly shrinking?: number }) => {
  if (message.shrinking !== undefined) shrinkingFrom = message.shrinking
  if (message.step !== undefined) step = message.step
  lastProgress = Date.now()
})

const watchdog = setInterval(() => {
  if (Date.now() - lastProgress < seconds * 1000) return
  stuck = true
  clearInterval(watchdog)
  // The child may be in a loop that never yields: only SIGKILL is sure to end it.
  child.kill("SIGKILL")
  const during = shrinkingFrom === undefined ? "" : ` while shrinking the failure at step ${shrinkingFrom}`
  const command = replayPath === undefined
    ? `pnpm simulate --seed ${seed} --steps ${step}${flags}`
    : `pnpm simulate --replay ${replayPath}${flags}`
  process.stdout.write(`simulation failed: seed=${seed} step=${step} no progress for ${seconds}s (watchdog)${during}\n`)
  process.stdout.write(`${command}\n`)
  process.exitCode = 1
}, 1000)

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal))

child.on("exit", (code, signal) => {
  clearInterval(watchdog)
  if (!stuck) process.exitCode = code ?? (signal === null ? 1 : 130)
})
