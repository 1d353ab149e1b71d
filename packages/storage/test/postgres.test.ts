/** The conformance suite on PostgreSQL (D43): a fresh database per run on a real server, dropped afterwards. */
import { describe } from "@effect/vitest"
import { conformance } from "./conformance/Conformance.js"
import { adminUrl, freshDatabase } from "./PgDatabase.js"

describe.skipIf(adminUrl === undefined)("PostgreSQL conformance", () => {
  conformance(freshDatabase())
})
