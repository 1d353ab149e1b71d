/**
 * The standalone engine server with every runtime step counted (`pnpm bench --builds`, Steps.ts). Effect 4 asks
 * the scheduler at each step of a fiber's run loop whether the fiber should yield: a scheduler that counts the
 * questions counts the steps, and the runtime's fiber metrics service counts the fibers started. The count does not
 * depend on the machine's load, so it tells two builds' per-request work apart where their timings on a shared
 * machine cannot. Counting slows the server a little; it is never the server that is timed. The parent asks over
 * IPC: `start` resets the counts, `stop` answers `{ steps, fibers }` since the last `start`.
 *
 * Steps.ts bundles this file inside each checkout it measures, so it imports only what every checkout exports; the
 * counting is Effect 4's, so every checkout measured must be on Effect 4.
 */
import { StandaloneLive } from "@support-engine/http"
import { Effect, type Fiber, Layer, Metric, Scheduler } from "effect"

const counts = { steps: 0, fibers: 0 }

class CountingScheduler extends Scheduler.MixedScheduler {
  override shouldYield(fiber: Fiber.Fiber<unknown, unknown>) {
    counts.steps++
    return super.shouldYield(fiber)
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
    Effect.provideService(Scheduler.Scheduler, new CountingScheduler()),
    Effect.provideService(Metric.FiberRuntimeMetrics, {
      recordFiberStart: () => {
        counts.fibers++
      },
      recordFiberEnd: () => {}
    })
  )
)
