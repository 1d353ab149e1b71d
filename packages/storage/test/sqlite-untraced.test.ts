/**
 * The conformance suite on SQLite with tracing off (core's Tracing.ts), as the standalone server and the Promise
 * facade run: every span is a no-op the tracer never sees, a path the traced run (sqlite.test.ts) never takes. A
 * file of its own: the isolation suite's `layer()` (from @effect/vitest) makes every suite after it in the same file
 * share one TestClock, which is why Conformance.ts runs it last; a second conformance run in sqlite.test.ts would
 * come after it.
 */
import { afterAll } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StorageLive } from "../src/Storage.js"
import { conformance } from "./conformance/Conformance.js"
import type { Adapter } from "./conformance/Harness.js"

const dir = mkdtempSync(join(tmpdir(), "support-engine-sqlite-untraced-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const adapter: Adapter = {
  name: "sqlite, untraced",
  storage: () => StorageLive(`file:${join(dir, "support.db")}`),
  untraced: true
}

conformance(adapter)
