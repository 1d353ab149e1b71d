/**
 * The engine's services as one layer. It needs the storage ports (`@support-engine/storage` provides them)
 * and an `IdGenerator`; `EngineLive` supplies the default generator, tests may supply `IdGenerator.Deterministic`.
 */
import { Layer } from "effect"
import { Agents } from "./Agents.js"
import { Companies } from "./Companies.js"
import { Conversations } from "./Conversations.js"
import { Customers } from "./Customers.js"
import { Events } from "./Events.js"
import { IdGenerator } from "./IdGenerator.js"
import { Messages } from "./Messages.js"
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
  Messages.Default
)

/** Every core service with the default id generator. */
export const EngineLive = EngineServices.pipe(Layer.provideMerge(IdGenerator.Default))

export type EngineService = Layer.Layer.Success<typeof EngineLive>
export type EnginePorts = Layer.Layer.Context<typeof EngineServices>
