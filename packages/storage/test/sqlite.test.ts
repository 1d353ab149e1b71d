/** The conformance suite on SQLite: a real database file per run, in a temporary directory. */
import { afterAll } from "@effect/vitest"
import { StorageLive } from "@support-engine/storage/Storage"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { agentsSuite } from "./conformance/AgentsSuite.js"
import { companiesSuite } from "./conformance/CompaniesSuite.js"
import { conversationsSuite } from "./conformance/ConversationsSuite.js"
import { customersSuite } from "./conformance/CustomersSuite.js"
import type { Adapter } from "./conformance/Harness.js"
import { isolationSuite } from "./conformance/IsolationSuite.js"
import { knowledgeBaseSuite } from "./conformance/KnowledgeBaseSuite.js"
import { messagesSuite } from "./conformance/MessagesSuite.js"
import { tokensSuite } from "./conformance/TokensSuite.js"
import { trainingSuite } from "./conformance/TrainingSuite.js"
import { webhooksSuite } from "./conformance/WebhooksSuite.js"

const dir = mkdtempSync(join(tmpdir(), "support-engine-sqlite-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const adapter: Adapter = {
  name: "sqlite",
  storage: () => StorageLive(`file:${join(dir, "support.db")}`)
}

tokensSuite(adapter)
companiesSuite(adapter)
customersSuite(adapter)
agentsSuite(adapter)
conversationsSuite(adapter)
messagesSuite(adapter)
trainingSuite(adapter)
knowledgeBaseSuite(adapter)
webhooksSuite(adapter)
// Last: it builds one shared layer (layer() from @effect/vitest), and suites after it would share its clock.
isolationSuite(adapter)
