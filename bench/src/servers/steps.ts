/**
 * The standalone engine server with every runtime step counted (`pnpm bench --builds`, Steps.ts): a supervisor
 * whose `onEffect` runs for each step of every fiber (`RuntimeFlags.OpSupervision`). The count does not depend on
 * the machine's load, so it tells two builds' per-request work apart where their timings on a shared machine
 * cannot. Counting slows the server; it is never the server that is timed. The parent asks over IPC: `start`
 * resets the counts, `stop` answers `{ steps, fibers }` since the last `start`.
 *
 * Steps.ts bundles this file inside each checkout it measures, so it imports only what every checkout exports.
 */
import { StandaloneLive } from "@support-engine/http"
import { Effect, Layer, RuntimeFlags, RuntimeFlagsPatch, Supervisor } from "effect"

const counts = { steps: 0, fibers: 0 }

class StepCounter extends Supervisor.AbstractSupervisor<void> {
  value = Effect.void
  override onStart() {
    counts.fibers++
  }
  override onEffect() {
    counts.steps++
  }
}

process.on("message", (message) => {
  if (message === "start") {
    counts.steps = 0
    counts.fibers = 0
    process.send?.({ started: true })
  } else if (message === "stop") {
    process.send?.({ ...counts })
  }
})

Effect.runFork(
  Layer.launch(StandaloneLive).pipe(
    Effect.supervised(new StepCounter()),
    Effect.withRuntimeFlagsPatch(RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision))
  )
)
