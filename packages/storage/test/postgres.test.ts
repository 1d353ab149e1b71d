/** The conformance suite on PostgreSQL (D43): a fresh database per run on a real server, dropped afterwards. */
import { afterAll, beforeAll, describe, it } from "@effect/vitest"
import { StorageLive } from "../src/Storage.js"
import { conformance } from "./conformance/Conformance.js"
import type { Adapter } from "./conformance/Harness.js"
import { adminUrl, createDatabase } from "./PgDatabase.js"

if (adminUrl === undefined) {
  describe("PostgreSQL conformance", () => {
    it.skip("skipped: set SUPPORT_TEST_PG_URL (for example postgres://postgres@127.0.0.1:5432/test) to run it", () => {})
  })

  console.warn("PostgreSQL conformance suite SKIPPED: SUPPORT_TEST_PG_URL is not set.")
} else {
  let database: Awaited<ReturnType<typeof createDatabase>> | undefined
  beforeAll(async () => {
    database = await createDatabase()
  })
  afterAll(async () => {
    await database?.drop()
  })

  const adapter: Adapter = {
    name: "postgres",
    storage: () => StorageLive(database!.url)
  }

  conformance(adapter)
}
