/**
 * The simulator on PostgreSQL (issue 19 item 4): a database of its own per run on the server named by
 * SUPPORT_TEST_PG_URL, made and dropped by the run, crashes included (the engine's connections are ended); every
 * invariant holds, and a seed run twice gives the same trace. Without the variable the suite is skipped, and says so.
 */
import { assert, describe, it } from "@effect/vitest"
import { simulate } from "../src/simulation/index.js"

const adminUrl = process.env["SUPPORT_TEST_PG_URL"]

if (adminUrl === undefined) {
  describe("simulation (postgres)", () => {
    it.skip("skipped: set SUPPORT_TEST_PG_URL (for example postgres://postgres@127.0.0.1:5432/test) to run it", () => {})
  })
} else {
  describe("simulation (postgres)", () => {
    it("a seed holds every invariant on PostgreSQL", { timeout: 120_000 }, async () => {
      const result = await simulate({ seed: 11, steps: 150, databaseUrl: adminUrl })
      assert.strictEqual(result._tag, "Ok", result._tag === "Failed" ? result.trace.slice(-3000) : "")
      assert.match(result.trace, /\n {2}sent /)
    })

    it("the same seed gives the same trace on PostgreSQL, byte for byte (issue 19)", { timeout: 180_000 }, async () => {
      const once = () => simulate({ seed: 3, steps: 150, databaseUrl: adminUrl })
      const a = await once()
      const b = await once()
      assert.strictEqual(a._tag, "Ok", a._tag === "Failed" ? a.trace.slice(-3000) : "")
      assert.strictEqual(b._tag, "Ok", b._tag === "Failed" ? b.trace.slice(-3000) : "")
      assert.strictEqual(a.trace, b.trace)
    })
  })
}
