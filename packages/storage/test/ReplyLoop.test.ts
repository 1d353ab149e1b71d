/** The AI reply loop (D53) on a SQLite file: behaviour, and exactly one reply per message across crashes. */
import { afterAll } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StorageLive } from "../src/Storage.js"
import type { Adapter } from "./conformance/Harness.js"
import { replySuite } from "./replies/ReplySuite.js"

const dir = mkdtempSync(join(tmpdir(), "support-engine-replies-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const adapter: Adapter = { name: "sqlite", storage: () => StorageLive(`file:${join(dir, "support.db")}`) }

replySuite(adapter)
