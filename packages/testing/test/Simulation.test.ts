import { assert, describe, it } from "@effect/vitest"
import { simulate } from "../src/simulation/index.js"

describe("simulation", () => {
  it("the same seed gives the same trace, byte for byte; another seed another", async () => {
    const a = await simulate({ seed: 11, steps: 120 })
    const b = await simulate({ seed: 11, steps: 120 })
    const c = await simulate({ seed: 12, steps: 120 })
    assert.strictEqual(a._tag, "Ok")
    assert.strictEqual(a.trace, b.trace)
    assert.notStrictEqual(a.trace, c.trace)
    assert.include(a.trace, "sent", "webhooks were delivered in the run")
  })

  it("a planted bug (a dropped signature) is caught", async () => {
    const result = await simulate({ seed: 11, steps: 200, plantBug: "drop-signature" })
    assert.strictEqual(result._tag, "Failed")
    if (result._tag === "Failed") assert.strictEqual(result.invariant, "every delivery's signature verifies")
  })

  it("a few more seeds hold every invariant", async () => {
    for (const seed of [1, 2, 3]) assert.strictEqual((await simulate({ seed, steps: 80 }))._tag, "Ok", `seed ${seed}`)
  })
})
