/** The users of a workspace, as a host provisions them (no principal, like every provisioning operation). */
import { Context, Effect, Layer } from "effect"
import { orNotFound } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import type { WorkspaceId } from "../shared/Ids.js"
import { UserId } from "../shared/Ids.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { decodeRequest } from "../shared/Validation.js"
import { CreateUser, User } from "./Workspace.js"
import { UserRepo } from "./WorkspaceRepo.js"
import { Workspaces } from "./Workspaces.js"

export class Users extends Context.Service<Users>()("@support-engine/core/Users", {
  make: Effect.gen(function*() {
    const repo = yield* UserRepo
    const workspaces = yield* Workspaces
    const ids = yield* IdGenerator

    const create = Tracing.fn("Users.create")(function*(input: CreateUser) {
      yield* workspaces.get(input.workspace_id)
      const at = yield* now
      const user = new User({
        id: UserId.make(yield* ids.uuid),
        workspace_id: input.workspace_id,
        name: input.name,
        email: input.email,
        created_at: at,
        updated_at: at
      })
      yield* repo.insert(user)
      return user
    })

    const get = Tracing.fn("Users.get")(function*(workspaceId: WorkspaceId, id: UserId) {
      return yield* repo.findById(workspaceId, id).pipe(orNotFound("User"))
    })

    return { create, get } as const
  })
}) {
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(Layer.provide(Workspaces.layer))
}

/** Input decoder for untyped callers (CLI, Promise API). */
export const decodeCreateUser = decodeRequest(CreateUser)
