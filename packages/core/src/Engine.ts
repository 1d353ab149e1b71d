/**
 * The engine's services as one layer. It needs the storage ports (`@support-engine/storage` provides them)
 * and an `IdGenerator` and a `TrainingProcessor`; `EngineLive` supplies the defaults (tests may supply
 * `IdGenerator.Deterministic`, hosts their own processor). The training worker runs only where a host starts
 * `TrainingWorker.layer()` (the storage package's `engineLayer` does).
 */
import { Layer } from "effect"
import { Agents } from "./Agents.js"
import { Companies } from "./Companies.js"
import { Conversations } from "./Conversations.js"
import { Customers } from "./Customers.js"
import { Events } from "./Events.js"
import { IdGenerator } from "./IdGenerator.js"
import { KnowledgeBase } from "./KnowledgeBase.js"
import { Messages } from "./Messages.js"
import { Training, TrainingSignal, TrainingWorker } from "./Training.js"
import { TrainingProcessor } from "./TrainingProcessor.js"
import { Tokens, Users, Workspaces } from "./Workspaces.js"

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
  KnowledgeBase.Default
)

/** Every core service with the default id generator. */
export const EngineLive = EngineServices.pipe(
  Layer.provideMerge(TrainingProcessor.Default),
  Layer.provideMerge(IdGenerator.Default)
)

export type EngineService = Layer.Layer.Success<typeof EngineLive>
export type EnginePorts = Layer.Layer.Context<typeof EngineServices>
