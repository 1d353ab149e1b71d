/**
 * The simulator on PostgreSQL (issue 19 item 4): a database of its own per run on the server named by
 * SUPPORT_TEST_PG_URL, made and dropped by the run, crashes included (the engine's connections are ended). Every
 * invariant holds, and a seed run twice gives the same trace, the one it gives on SQLite. Without the variable the
 * suite is skipped.
 */
import { assert, describe, it } from "@effect/vitest"
import { simulate } from "../src/simulation/index.js"

const adminUrl = process.env["SUPPORT_TEST_PG_URL"]

describe.skipIf(adminUrl === undefined)("simulation (postgres)", () => {
  const databaseUrl = adminUrl!
  it("a seed holds every invariant on PostgreSQL", { timeout: 120_000 }, async () => {
    const result = await simulate({ seed: 11, steps: 150, databaseUrl })
    assert.strictEqual(result._tag, "Ok", result._tag === "Failed" ? result.trace.slice(-3000) : "")
    assert.match(result.trace, /\n {2}sent /)
  })

  it("the same seed gives the same trace twice on PostgreSQL, and the one it gives on SQLite", {
    timeout: 180_000
  }, async () => {
    const options = { seed: 4, steps: 150 }
    const a = await simulate({ ...options, databaseUrl })
    const b = await simulate({ ...options, databaseUrl })
    assert.strictEqual(a._tag, "Ok", a._tag === "Failed" ? a.trace.slice(-3000) : "")
    assert.strictEqual(b.trace, a.trace)
    // The engine behaves alike on both databases (D43), and the simulator does the same on both.
    assert.strictEqual((await simulate(options)).trace, a.trace)
  })
})
