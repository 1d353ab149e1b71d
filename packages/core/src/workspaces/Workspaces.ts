/**
 * Provisioning: workspaces, users and API tokens (D8, D9). These are engine operations for hosts and the
 * CLI, not `/v1` endpoints, so they take no principal; `Tokens.authenticate` turns a bearer value into one.
 */
import { Context, DateTime, Effect, Layer, Option, Redacted } from "effect"
import { hash, timingSafeEqual } from "node:crypto"
import { NotFound, orNotFound, Unauthenticated, ValidationError } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { type AgentId, ApiTokenId, OrganizationId, UserId, WorkspaceId } from "../shared/Ids.js"
import { Actor, Principal, type PrincipalShape } from "../shared/Principal.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { decodeRequest } from "../shared/Validation.js"
import { ApiToken, CreateApiToken, TokenInfo } from "./ApiToken.js"
import { CreateUser, CreateWorkspace, User, Workspace } from "./Workspace.js"
import { ApiTokenRepo, UserRepo, WorkspaceRepo } from "./WorkspaceRepo.js"

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
     * Sets the workspace's email agent (D8, D27). Whether the agent exists in the workspace is checked by the
     * caller that owns agents (`Agents.setEmailAgent`); this only stores it.
     */
    const setEmailAgent = Tracing.fn("Workspaces.setEmailAgent")(function*(id: WorkspaceId, agentId: AgentId | null) {
      yield* get(id)
      yield* repo.setEmailAgent(id, agentId, yield* now)
      return yield* get(id)
    })

    /**
     * Creates the workspace only when the database has none yet (`serve`'s bootstrap, D42), atomically across
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

const TOKEN_SECRET_LENGTH = 40
const LAST_USED_RESOLUTION_MS = 60_000
const URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** Lowercase hex SHA-256 of a plain token value: what is stored and compared (D9). */
// `crypto.hash` (Node 20.12+): one call instead of a `Hash` object per request, 1.7 -> 0.9 µs here.
export const hashToken = (plain: string): string => hash("sha256", plain, "hex")

/** A created token: the record and its plain value, shown this once (D9). */
export interface IssuedToken {
  readonly token: ApiToken
  readonly plain: Redacted.Redacted<string>
}

export class Tokens extends Context.Service<Tokens>()("@support-engine/core/Tokens", {
  make: Effect.gen(function*() {
    const repo = yield* ApiTokenRepo
    const workspaces = yield* Workspaces
    const ids = yield* IdGenerator

    const create = Tracing.fn("Tokens.create")(function*(input: CreateApiToken) {
      yield* workspaces.get(input.workspace_id)
      const at = yield* now
      if (input.expires_at !== null && DateTime.isLessThanOrEqualTo(input.expires_at, at)) {
        return yield* ValidationError.field("expires_at", "must be in the future")
      }
      const id = ApiTokenId.make(yield* ids.uuid)
      // 64 symbols: every byte maps uniformly, since 256 is a multiple of 64.
      const secret = Array.from(yield* ids.secret(TOKEN_SECRET_LENGTH), (b) => URL_SAFE[b % 64]).join("")
      const plain = `${id}|${secret}`
      const token = new ApiToken({
        id,
        workspace_id: input.workspace_id,
        name: input.name,
        abilities: [...new Set(input.abilities)],
        expires_at: input.expires_at,
        last_used_at: null,
        created_at: at,
        updated_at: at
      })
      yield* repo.insert(token, hashToken(plain))
      return { token, plain: Redacted.make(plain) } satisfies IssuedToken
    })

    /** Deletes a token; it is invalid from the next request on (D9). */
    const revoke = Tracing.fn("Tokens.revoke")(function*(id: ApiTokenId) {
      const deleted = yield* repo.delete(id)
      if (!deleted) return yield* new NotFound({ resource: "API token" })
    })

    /**
     * Resolves a bearer value to its principal (D9): unknown, malformed, expired or deleted tokens are all
     * `Unauthenticated`, with the same message, and the hash comparison is constant-time.
     */
    const authenticate = Tracing.fn("Tokens.authenticate")(function*(plain: Redacted.Redacted<string>) {
      const value = Redacted.value(plain)
      const separator = value.indexOf("|")
      const rawId = value.slice(0, separator)
      if (separator !== 36 || !ApiTokenIdPattern.test(rawId)) return yield* new Unauthenticated()
      const stored = yield* repo.findById(ApiTokenId.make(rawId))
      if (Option.isNone(stored)) return yield* new Unauthenticated()
      const expected = Buffer.from(stored.value.hash, "hex")
      const actual = hash("sha256", value, "buffer")
      if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return yield* new Unauthenticated()
      const { token } = stored.value
      const at = yield* now
      if (token.expires_at !== null && DateTime.isLessThanOrEqualTo(token.expires_at, at)) {
        return yield* new Unauthenticated()
      }
      // A read must not cost a write on every request: last_used_at is kept to the minute.
      if (
        token.last_used_at === null ||
        at.epochMilliseconds - token.last_used_at.epochMilliseconds >= LAST_USED_RESOLUTION_MS
      ) {
        yield* repo.touch(token.id, at)
      }
      return {
        workspaceId: token.workspace_id,
        organizationId: stored.value.organizationId,
        abilities: token.abilities,
        actor: Actor.apiToken(token.id)
      } satisfies PrincipalShape
    })

    /** A token's record (without its hash), for provisioning tools. */
    const get = Tracing.fn("Tokens.get")(function*(id: ApiTokenId) {
      const stored = yield* repo.findById(id)
      if (Option.isNone(stored)) return yield* new NotFound({ resource: "API token" })
      return stored.value.token
    })

    /**
     * A workspace's tokens, oldest first, for provisioning tools (`token list`): records only. A token's value is
     * never stored, so a lost one cannot be shown again; make another and revoke the lost one.
     */
    const list = Tracing.fn("Tokens.list")(function*(workspaceId: WorkspaceId) {
      yield* workspaces.get(workspaceId)
      return yield* repo.listByWorkspace(workspaceId)
    })

    /**
     * The token the caller authenticated with: any valid token may read itself, whatever its abilities. A
     * principal that is no token (the engine itself, a user) has none to show.
     */
    const current = Tracing.fn("Tokens.current")(function*() {
      const principal = yield* Principal
      if (principal.actor.type !== "api_token" || principal.actor.id === null) {
        return yield* new NotFound({ resource: "API token" })
      }
      const stored = yield* repo.findById(ApiTokenId.make(principal.actor.id))
      if (Option.isNone(stored) || stored.value.token.workspace_id !== principal.workspaceId) {
        return yield* new NotFound({ resource: "API token" })
      }
      const { token } = stored.value
      return new TokenInfo({
        id: token.id,
        workspace_id: token.workspace_id,
        name: token.name,
        abilities: token.abilities,
        expires_at: token.expires_at,
        last_used_at: token.last_used_at,
        created_at: token.created_at
      })
    })

    return { create, revoke, authenticate, get, list, current } as const
  })
}) {
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(Layer.provide(Workspaces.layer))
}

const ApiTokenIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Input decoders for untyped callers (CLI, Promise facade). */
export const decodeCreateWorkspace = decodeRequest(CreateWorkspace)
export const decodeCreateUser = decodeRequest(CreateUser)
export const decodeCreateApiToken = decodeRequest(CreateApiToken)
