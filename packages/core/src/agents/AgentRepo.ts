/** Storage port for agents. Every method is scoped by workspace. */
import { Context, type Effect, type Option } from "effect"
import type { PersistenceError } from "../shared/Errors.js"
import type { AgentId, WorkspaceId } from "../shared/Ids.js"
import type { Slice, SliceRequest, UniqueViolation } from "../shared/Repository.js"
import type { Agent } from "./Agent.js"

export class AgentRepo extends Context.Service<AgentRepo, {
  /**
   * `UniqueViolation` `agents.slug`: the workspace already has an agent with this slug (two creates chose the same free
   * slug at once); the service retries with the next free slug.
   */
  readonly insert: (workspaceId: WorkspaceId, agent: Agent) => Effect.Effect<void, PersistenceError | UniqueViolation>
  readonly update: (workspaceId: WorkspaceId, agent: Agent) => Effect.Effect<void, PersistenceError>
  readonly findById: (workspaceId: WorkspaceId, id: AgentId) => Effect.Effect<Option.Option<Agent>, PersistenceError>
  /** The subset of `ids` that are agents of the workspace. */
  readonly findIds: (
    workspaceId: WorkspaceId,
    ids: ReadonlyArray<AgentId>
  ) => Effect.Effect<ReadonlyArray<AgentId>, PersistenceError>
  /** Slugs of the workspace that are `base` or start with `base-`, to pick the next free one. */
  readonly slugsLike: (workspaceId: WorkspaceId, base: string) => Effect.Effect<ReadonlyArray<string>, PersistenceError>
  readonly delete: (workspaceId: WorkspaceId, id: AgentId) => Effect.Effect<boolean, PersistenceError>
  readonly list: (
    workspaceId: WorkspaceId,
    filter: { readonly is_active?: boolean | undefined },
    slice: SliceRequest
  ) => Effect.Effect<Slice<Agent>, PersistenceError>
}>()("@support-engine/core/AgentRepo") {}
