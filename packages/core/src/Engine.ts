/**
 * The engine's services as one layer. It needs the storage ports (`@support-engine/storage` provides them)
 * and an `IdGenerator` and a `TrainingProcessor`; `EngineLive` supplies the defaults (tests may supply
 * `IdGenerator.Deterministic`, hosts their own processor). The training worker and the reply worker run only where
 * a host starts `TrainingWorker.layer()` and `ReplyWorker.layer()` (the storage package's `engineLayer` does).
 */
import { Layer } from "effect"
import { Agents } from "./agents/Agents.js"
import { AgentAsk } from "./ai/AgentAsk.js"
import { ReplySignal } from "./ai/ReplySignal.js"
import { ReplyWorker } from "./ai/ReplyWorker.js"
import { Companies } from "./companies/Companies.js"
import { Conversations } from "./conversations/Conversations.js"
import { Messages } from "./conversations/Messages.js"
import { Customers } from "./customers/Customers.js"
import { Events } from "./events/Events.js"
import { Idempotency } from "./idempotency/Idempotency.js"
import { KnowledgeBase } from "./knowledge-base/KnowledgeBase.js"
import { IdGenerator } from "./shared/IdGenerator.js"
import { Training } from "./training/Training.js"
import { TrainingProcessor } from "./training/TrainingProcessor.js"
import { TrainingSignal } from "./training/TrainingSignal.js"
import { TrainingWorker } from "./training/TrainingWorker.js"
import { Tokens, Users, Workspaces } from "./workspaces/Workspaces.js"

/** Every core service. */
export const EngineServices = Layer.mergeAll(
  Workspaces.Default,
  Users.Default,
  Tokens.Default,
  Events.Default,
  Companies.Default,
  Customers.Default,
  Agents.Default,
  Conversations.Default,
  Messages.Default,
  Training.Default,
  TrainingWorker.Default,
  TrainingSignal.Default,
  KnowledgeBase.Default,
  Idempotency.Default,
  AgentAsk.Default,
  ReplyWorker.Default,
  ReplySignal.Default
)

/** Every core service with the default id generator. */
export const EngineLive = EngineServices.pipe(
  Layer.provideMerge(TrainingProcessor.Default),
  Layer.provideMerge(IdGenerator.Default)
)

export type EngineService = Layer.Layer.Success<typeof EngineLive>
export type EnginePorts = Layer.Layer.Context<typeof EngineServices>
