/**
 * The engine's services as one layer. It needs the storage ports (`@support-engine/storage` provides them)
 * and an `IdGenerator` and a `TrainingProcessor`; `EngineLive` supplies the defaults (tests may supply
 * `IdGenerator.Deterministic`, hosts their own processor). The training worker and the reply worker run only where
 * a host starts `TrainingWorker.layer()` and `ReplyWorker.layer()` (the engine package's `supportEngineLayer` does).
 */
import { Layer } from "effect"
import { Agents } from "./agents/Agents.js"
import { AgentAsk } from "./ai/AgentAsk.js"
import { Copilot } from "./ai/Copilot.js"
import { ReplySignal } from "./ai/ReplySignal.js"
import { ReplyWorker } from "./ai/ReplyWorker.js"
import { Companies } from "./companies/Companies.js"
import { Conversations } from "./conversations/Conversations.js"
import { Messages } from "./conversations/Messages.js"
import { CustomerExports } from "./customers/CustomerExport.js"
import { Customers } from "./customers/Customers.js"
import { Events } from "./events/Events.js"
import { Idempotency } from "./idempotency/Idempotency.js"
import { KnowledgeBase } from "./knowledge-base/KnowledgeBase.js"
import { IdGenerator } from "./shared/IdGenerator.js"
import { Training } from "./training/Training.js"
import { TrainingProcessor } from "./training/TrainingProcessor.js"
import { TrainingSignal } from "./training/TrainingSignal.js"
import { TrainingWorker } from "./training/TrainingWorker.js"
import { Tokens } from "./workspaces/Tokens.js"
import { Users } from "./workspaces/Users.js"
import { Workspaces } from "./workspaces/Workspaces.js"

/** Every core service. */
export const EngineServices = Layer.mergeAll(
  Workspaces.layer,
  Users.layer,
  Tokens.layer,
  Events.layer,
  Companies.layer,
  Customers.layer,
  CustomerExports.layer,
  Agents.layer,
  Conversations.layer,
  Messages.layer,
  Training.layer,
  TrainingWorker.layerService,
  TrainingSignal.layer,
  KnowledgeBase.layer,
  Idempotency.layer,
  AgentAsk.layer,
  Copilot.layer,
  ReplyWorker.layerService,
  ReplySignal.layer
)

/** Every core service with the default id generator. */
export const EngineLive = EngineServices.pipe(
  Layer.provideMerge(TrainingProcessor.layer),
  Layer.provideMerge(IdGenerator.layer)
)

export type EngineService = Layer.Success<typeof EngineLive>
export type EnginePorts = Layer.Services<typeof EngineServices>
