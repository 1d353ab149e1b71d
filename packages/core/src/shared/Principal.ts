/**
 * The caller of an operation: its workspace, its abilities and the actor recorded on events.
 * Every service operation reads the principal from the context and checks ability and scope itself,
 * so in-process callers get exactly the HTTP rules.
 */
import { Context, Effect, Schema } from "effect"
import { InsufficientAbility } from "./Errors.js"
import { type AgentId, type ApiTokenId, type OrganizationId, type UserId, Uuid, type WorkspaceId } from "./Ids.js"
import * as Model from "./Model.js"

/** What a token's abilities are granted on: each group of the API is one resource. */
export const RESOURCES = [
  "agents",
  "customers",
  "companies",
  "conversations",
  "training",
  "knowledge-base",
  "webhooks",
  "events"
] as const
export type Resource = typeof RESOURCES[number]

export type Access = "read" | "write"

export const Ability = Schema.Literals([
  "external-api:read",
  "external-api:write",
  "agents:read",
  "agents:write",
  "customers:read",
  "customers:write",
  "companies:read",
  "companies:write",
  "conversations:read",
  "conversations:write",
  "training:read",
  "training:write",
  "knowledge-base:read",
  "knowledge-base:write",
  "webhooks:read",
  "webhooks:write",
  "events:read"
])
export type Ability = typeof Ability.Type

/** Every ability a token may carry: the two broad ones, valid for every resource, then each resource's own. */
export const ABILITIES: ReadonlyArray<Ability> = Ability.literals

/** Resources that can only be read: no `<resource>:write` ability exists for them. */
const READ_ONLY_RESOURCES: ReadonlySet<Resource> = new Set(["events"])

/** What an operation needs: one access to one resource. */
export interface Requirement {
  readonly resource: Resource
  readonly access: Access
}

/** The broad ability of an access, valid for every resource. */
export const broadAbility = (access: Access): Ability => access === "read" ? "external-api:read" : "external-api:write"

/** The resource's own ability for an access. */
export const resourceAbility = ({ access, resource }: Requirement): Ability =>
  Schema.decodeUnknownSync(Ability)(`${resource}:${access}`)

/**
 * Every ability that allows the access, narrowest first: writing a resource needs its write ability or the broad
 * write one; reading it is also allowed by the read ones, since write includes read.
 */
export const abilitiesAllowing = (requirement: Requirement): ReadonlyArray<Ability> => {
  const key = `${requirement.resource}:${requirement.access}`
  let allowing = ALLOWING.get(key)
  if (allowing === undefined) {
    allowing = listAllowing(requirement)
    ALLOWING.set(key, allowing)
  }
  return allowing
}

/**
 * The lists of `abilitiesAllowing`, made once per resource and access (a few dozen): every authenticated request
 * checks one, twice (HTTP and core), and making it validates each ability's name.
 */
const ALLOWING = new Map<string, ReadonlyArray<Ability>>()

const listAllowing = (requirement: Requirement): ReadonlyArray<Ability> => {
  if (requirement.access === "write") return [resourceAbility(requirement), broadAbility("write")]
  const narrow = READ_ONLY_RESOURCES.has(requirement.resource)
    ? [resourceAbility(requirement)]
    : [resourceAbility(requirement), resourceAbility({ ...requirement, access: "write" })]
  return [...narrow, broadAbility("read"), broadAbility("write")]
}

/** Who caused a change. */
export class Actor extends Model.Class<Actor>("Actor")({
  type: Schema.Literals(["api_token", "user", "agent", "system"]),
  id: Schema.NullOr(Uuid)
}) {
  static readonly system = new Actor({ type: "system", id: null })
  // The branded ids were checked when they were made; every authenticated request makes an actor.
  static apiToken(id: ApiTokenId): Actor {
    return new Actor({ type: "api_token", id }, { disableChecks: true })
  }
  static user(id: UserId): Actor {
    return new Actor({ type: "user", id }, { disableChecks: true })
  }
  static agent(id: AgentId): Actor {
    return new Actor({ type: "agent", id }, { disableChecks: true })
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

/** Whether the principal may have this access to the resource. */
export const permits = (principal: PrincipalShape, requirement: Requirement): boolean =>
  abilitiesAllowing(requirement).some((ability) => principal.abilities.includes(ability))

/** The principal, if it may have this access to the resource; else the 403 that names the abilities it lacks. */
export const requireAccess = (
  requirement: Requirement
): Effect.Effect<PrincipalShape, InsufficientAbility, Principal> =>
  Effect.flatMap(
    Principal,
    (principal) =>
      permits(principal, requirement)
        ? Effect.succeed(principal)
        : Effect.fail(InsufficientAbility.lacking(resourceAbility(requirement), broadAbility(requirement.access)))
  )

/** The checks of one resource's operations: a service takes these for the resource it serves. */
export const accessTo = (resource: Resource) => ({
  canRead: requireAccess({ resource, access: "read" }),
  canWrite: requireAccess({ resource, access: "write" })
})
