/** Every conformance suite, in one list, so each adapter runs exactly the same tests (D43). */
import { agentsSuite } from "./AgentsSuite.js"
import { aiSuite } from "./AiSuite.js"
import { companiesSuite } from "./CompaniesSuite.js"
import { conversationsSuite } from "./ConversationsSuite.js"
import { copilotSuite } from "./CopilotSuite.js"
import { cursorsSuite } from "./CursorsSuite.js"
import { customersSuite } from "./CustomersSuite.js"
import { deferredFanOutSuite } from "./DeferredFanOutSuite.js"
import { erasureSuite } from "./ErasureSuite.js"
import { fairDeliverySuite } from "./FairDeliverySuite.js"
import type { Adapter } from "./Harness.js"
import { idempotencySuite } from "./IdempotencySuite.js"
import { isolationSuite } from "./IsolationSuite.js"
import { knowledgeBaseSuite } from "./KnowledgeBaseSuite.js"
import { listIndexesSuite } from "./ListIndexesSuite.js"
import { messagesSuite } from "./MessagesSuite.js"
import { operationsSuite } from "./OperationsSuite.js"
import { personalDataSuite } from "./PersonalDataSuite.js"
import { preconditionsSuite } from "./PreconditionsSuite.js"
import { requeueSuite } from "./RequeueSuite.js"
import { retentionSuite } from "./RetentionSuite.js"
import { searchLanguagesSuite } from "./SearchLanguagesSuite.js"
import { searchSuite } from "./SearchSuite.js"
import { serialisationSuite } from "./SerialisationSuite.js"
import { tokensSuite } from "./TokensSuite.js"
import { trainingSuite } from "./TrainingSuite.js"
import { webhookOpsSuite } from "./WebhookOpsSuite.js"
import { webhooksSuite } from "./WebhooksSuite.js"

export const conformance = (adapter: Adapter): void => {
  tokensSuite(adapter)
  companiesSuite(adapter)
  customersSuite(adapter)
  agentsSuite(adapter)
  conversationsSuite(adapter)
  messagesSuite(adapter)
  personalDataSuite(adapter)
  erasureSuite(adapter)
  trainingSuite(adapter)
  knowledgeBaseSuite(adapter)
  webhooksSuite(adapter)
  webhookOpsSuite(adapter)
  requeueSuite(adapter)
  fairDeliverySuite(adapter)
  deferredFanOutSuite(adapter)
  cursorsSuite(adapter)
  listIndexesSuite(adapter)
  preconditionsSuite(adapter)
  idempotencySuite(adapter)
  serialisationSuite(adapter)
  searchSuite(adapter)
  aiSuite(adapter)
  searchLanguagesSuite(adapter)
  retentionSuite(adapter)
  operationsSuite(adapter)
  copilotSuite(adapter)
  // Last: it builds one shared layer (layer() from @effect/vitest), and suites after it would share its clock.
  isolationSuite(adapter)
}
