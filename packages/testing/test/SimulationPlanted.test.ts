/**
 * The checks can fail (issue 19, "Must hold"): each bug the simulator can plant in the engine is caught within the
 * default steps, by the invariant that covers it; a failing run shrinks to fewer steps that still fail the same way,
 * and the shrunk run replays.
 */
import { assert, describe, it } from "@effect/vitest"
import { DEFAULT_STEPS, type PlantedBug, shrink, simulate } from "../src/simulation/index.js"

const caughtBy: Record<PlantedBug, RegExp> = {
  "drop-signature": /signatures verify/,
  "skip-delivery": /every committed event reaches every active subscriber/,
  "duplicate-delivery": /every attempt is made at the time the retry timetable gives|no attempt after a delivery ended/,
  "wrong-total": /list totals equal the rows/,
  "isolation-leak": /invalid operation|nothing of one workspace is visible/,
  "prohibited-reply": /prohibited phrase|stored as its event says/,
  "stale-after-erase": /no read after an erasure returns the customer's data/
}

describe("planted bugs", () => {
  for (const [bug, invariant] of Object.entries(caughtBy) as Array<[PlantedBug, RegExp]>) {
    it(`${bug} is caught within the default ${DEFAULT_STEPS} steps`, async () => {
      const result = await simulate({ seed: 1, steps: DEFAULT_STEPS, plantBug: bug, crashes: false })
      assert.strictEqual(result._tag, "Failed", `${bug} was not caught`)
      if (result._tag === "Failed") assert.match(result.invariant, invariant)
    })
  }

  it("a failing run shrinks to fewer steps that still break the same invariant, and replays", async () => {
    const options = { seed: 1, steps: DEFAULT_STEPS, plantBug: "wrong-total" as const, crashes: false }
    const failed = await simulate(options)
    assert.strictEqual(failed._tag, "Failed")
    if (failed._tag !== "Failed") return
    const { result } = await shrink(options, failed, 40)
    assert.isBelow(result.step, failed.step)
    assert.strictEqual(result.invariant, failed.invariant)
    const replayed = await simulate({ ...options, stepSeeds: result.stepSeeds, steps: result.stepSeeds.length })
    assert.strictEqual(replayed._tag, "Failed")
    if (replayed._tag === "Failed") assert.strictEqual(replayed.step, result.step)
  })
})
