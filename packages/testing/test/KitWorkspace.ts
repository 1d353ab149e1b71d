/** The workspace the kit's tests run as, and how a test runs core's services as it. */
import {
  Actor,
  CreateApiToken,
  CreateWorkspace,
  Principal,
  type PrincipalShape,
  Tokens,
  type Workspace,
  Workspaces
} from "@support-engine/core"
import { Effect } from "effect"

/** A new workspace and the principal of a write token of it. */
export const kitWorkspace: Effect.Effect<
  { readonly workspace: Workspace; readonly principal: PrincipalShape },
  never,
  Workspaces | Tokens
> = Effect.gen(function*() {
  const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name: "Kit" }))
  const { token } = yield* (yield* Tokens).create(
    new CreateApiToken({ workspace_id: workspace.id, name: "kit", abilities: ["external-api:write"] })
  )
  const principal: PrincipalShape = {
    workspaceId: workspace.id,
    organizationId: workspace.organization_id,
    abilities: ["external-api:write"],
    actor: Actor.apiToken(token.id)
  }
  return { workspace, principal }
}).pipe(Effect.orDie)

/** Runs `self` as `principal`. */
export const as = (principal: PrincipalShape) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provideService(self, Principal, principal)
