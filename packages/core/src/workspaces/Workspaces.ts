/**
 * Workspaces, as a host provisions them. Provisioning is an engine operation for hosts and the CLI, not a `/v1`
 * endpoint, so it takes no principal.
 */
import { Context, Effect, Layer, Option } from "effect"
import { orNotFound } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { type AgentId, OrganizationId, WorkspaceId } from "../shared/Ids.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { decodeRequest } from "../shared/Validation.js"
import { CreateWorkspace, Workspace } from "./Workspace.js"
import { WorkspaceRepo } from "./WorkspaceRepo.js"

export class Workspaces extends Context.Service<Workspaces>()("@support-engine/core/Workspaces", {
  make: Effect.gen(function*() {
    const repo = yield* WorkspaceRepo
    const ids = yield* IdGenerator

    const create = Tracing.fn("Workspaces.create")(function*(input: CreateWorkspace) {
      const at = yield* now
      const workspace = new Workspace({
        id: WorkspaceId.make(yield* ids.uuid),
        name: input.name,
        organization_id: input.organization_id ?? OrganizationId.make(yield* ids.uuid),
        email_agent_id: null,
        created_at: at,
        updated_at: at
      })
      yield* repo.insert(workspace)
      return workspace
    })

    const get = Tracing.fn("Workspaces.get")(function*(id: WorkspaceId) {
      return yield* repo.findById(id).pipe(orNotFound("Workspace"))
    })

    /**
     * Sets the workspace's email agent. Whether the agent exists in the workspace is checked by the
     * caller that owns agents (`Agents.setEmailAgent`); this only stores it.
     */
    const setEmailAgent = Tracing.fn("Workspaces.setEmailAgent")(function*(id: WorkspaceId, agentId: AgentId | null) {
      yield* get(id)
      yield* repo.setEmailAgent(id, agentId, yield* now)
      return yield* get(id)
    })

    /**
     * Creates the workspace only when the database has none yet (`serve`'s bootstrap), atomically across
     * processes: servers started together on one empty database create one workspace between them. Run it inside
     * a transaction (the lock lasts until the transaction ends); `None` when a workspace already exists.
     */
    const createFirst = Tracing.fn("Workspaces.createFirst")(function*(input: CreateWorkspace) {
      yield* repo.lockCreates
      if ((yield* repo.list).length > 0) return Option.none<Workspace>()
      return Option.some(yield* create(input))
    })

    return { create, createFirst, get, list: repo.list, setEmailAgent } as const
  })
}) {
  /** Needs `WorkspaceRepo` and `IdGenerator`. */
  static readonly layer = Layer.effect(this, this.make)
}

/** Input decoder for untyped callers (CLI, Promise API). */
export const decodeCreateWorkspace = decodeRequest(CreateWorkspace)
