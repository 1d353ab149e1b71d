/** The conformance suite on SQLite: a real database file per run, in a temporary directory. */
import { afterAll } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StorageLive } from "../src/Storage.js"
import { conformance } from "./conformance/Conformance.js"
import type { Adapter } from "./conformance/Harness.js"

const dir = mkdtempSync(join(tmpdir(), "support-engine-sqlite-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const adapter: Adapter = {
  name: "sqlite",
  storage: () => StorageLive(`file:${join(dir, "support.db")}`)
}

conformance(adapter)
