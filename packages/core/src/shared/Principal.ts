/**
 * The caller of an operation: its workspace, its abilities and the actor recorded on events (D9-D11, D44).
 * Every service operation reads the principal from the context and checks ability and scope itself,
 * so in-process callers get exactly the HTTP rules (D3).
 */
import { Context, Effect, Schema } from "effect"
import { InsufficientAbility } from "./Errors.js"
import { type AgentId, type ApiTokenId, type OrganizationId, type UserId, Uuid, type WorkspaceId } from "./Ids.js"
import * as Model from "./Model.js"

export const Ability = Schema.Literals(["external-api:read", "external-api:write"])
export type Ability = typeof Ability.Type

/** Who caused a change (D44). */
export class Actor extends Model.Class<Actor>("Actor")({
  type: Schema.Literals(["api_token", "user", "agent", "system"]),
  id: Schema.NullOr(Uuid)
}) {
  static readonly system = new Actor({ type: "system", id: null })
  static apiToken(id: ApiTokenId): Actor {
    return new Actor({ type: "api_token", id })
  }
  static user(id: UserId): Actor {
    return new Actor({ type: "user", id })
  }
  static agent(id: AgentId): Actor {
    return new Actor({ type: "agent", id })
  }
}

export interface PrincipalShape {
  readonly workspaceId: WorkspaceId
  readonly organizationId: OrganizationId
  readonly abilities: ReadonlyArray<Ability>
  readonly actor: Actor
}

export class Principal extends Context.Service<Principal, PrincipalShape>()("@support-engine/core/Principal") {
  /** A principal with every ability, acting as the engine itself (background work, provisioning). */
  static system(workspaceId: WorkspaceId, organizationId: OrganizationId): PrincipalShape {
    return { workspaceId, organizationId, abilities: ["external-api:read", "external-api:write"], actor: Actor.system }
  }
}

/** Write grants read (D10). */
export const hasAbility = (principal: PrincipalShape, needed: Ability): boolean =>
  principal.abilities.includes("external-api:write") || principal.abilities.includes(needed)

const require = (ability: Ability): Effect.Effect<PrincipalShape, InsufficientAbility, Principal> =>
  Effect.flatMap(
    Principal,
    (principal) =>
      hasAbility(principal, ability) ? Effect.succeed(principal) : Effect.fail(new InsufficientAbility({ ability }))
  )

/** The principal, if it may read (D10). */
export const canRead = require("external-api:read")
/** The principal, if it may write (D10). */
export const canWrite = require("external-api:write")
