/** The conformance suite on PostgreSQL (D43): a fresh database per run on a real server, dropped afterwards. */
import { afterAll, beforeAll, describe } from "@effect/vitest"
import { StorageLive } from "../src/Storage.js"
import { conformance } from "./conformance/Conformance.js"
import type { Adapter } from "./conformance/Harness.js"
import { adminUrl, createDatabase } from "./PgDatabase.js"

describe.skipIf(adminUrl === undefined)("PostgreSQL conformance", () => {
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
})
