/**
 * `pnpm simulate`'s watchdog (D54): a run whose step stops making progress is reported as a failed run, with the
 * failure line and the command that replays it, instead of spinning silently. The stall is a step that never yields
 * (`--stall-at-step`), the hardest case: only killing the process ends it.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const main = fileURLToPath(new URL("../src/SimulateMain.ts", import.meta.url))

describe("simulate's watchdog", () => {
  it("ends a run whose step spins and prints the D54 failure line and the replay command", () => {
    const run = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        main,
        "--seed",
        "3",
        "--steps",
        "40",
        "--no-crashes",
        "--stall-at-step",
        "7",
        // Long enough that the steps before the stall (the engine's start included) never trip it on a busy
        // machine; the stalled step never ends, so any bound finds it.
        "--watchdog-seconds",
        "20"
      ],
      { encoding: "utf8", timeout: 100_000 }
    )
    assert.strictEqual(run.status, 1, run.stderr)
    const lines = run.stdout.trim().split("\n")
    assert.deepStrictEqual(lines.slice(-2), [
      "simulation failed: seed=3 step=7 no progress for 20s (watchdog)",
      "pnpm simulate --seed 3 --steps 7 --no-crashes"
    ])
  }, 120_000)

  it("passes a run that makes progress through, with its own last line and exit code", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", main, "--seed", "3", "--steps", "20", "--no-crashes"], {
      encoding: "utf8",
      timeout: 60_000
    })
    assert.strictEqual(run.status, 0, run.stderr)
    assert.match(run.stdout.trim().split("\n").at(-1)!, /^simulation ok: seed=3 steps=20 trace=[0-9a-f]{64}$/)
  }, 90_000)
})
