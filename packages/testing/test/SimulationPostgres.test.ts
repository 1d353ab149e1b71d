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

  it("a seed gives one trace on PostgreSQL, run after run, and on SQLite: a 410 among the attempts of its instant", {
    timeout: 180_000
  }, async () => {
    // Seed 3: at step 112 the training worker commits two events in one instant, and a webhook subscribed to both
    // answers the first one's delivery 410. The dispatcher records that answer once the engine has made the other
    // attempts of the instant, the second delivery's among them, on PostgreSQL as on SQLite (Advance.ts,
    // `serverDatabase`); without that, on PostgreSQL the 410 was recorded while the second commit was on its way, and
    // the deactivation cancelled the second delivery.
    const options = { seed: 3, steps: 150 }
    const a = await simulate({ ...options, databaseUrl })
    const b = await simulate({ ...options, databaseUrl })
    assert.strictEqual(a._tag, "Ok", a._tag === "Failed" ? a.trace.slice(-3000) : "")
    assert.isTrue(goneTwiceAtOnce(a.trace), "a webhook answered two attempts of one instant 410")
    assert.strictEqual(b.trace, a.trace)
    // The engine behaves alike on both databases (D43), and the simulator does the same on both.
    assert.strictEqual((await simulate(options)).trace, a.trace)
  })
})

/** Whether some receiver answered 410 to two requests started in the same instant. */
const goneTwiceAtOnce = (trace: string) => {
  const seen = new Set<string>()
  for (const [, at, receiver] of trace.matchAll(/^ {2}sent (\d+) (\S+) 410 /gm)) {
    const key = `${at} ${receiver}`
    if (seen.has(key)) return true
    seen.add(key)
  }
  return false
}
