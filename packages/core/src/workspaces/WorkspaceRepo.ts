/** Storage ports for workspaces, users and API tokens; adapters live in `@support-engine/storage`. */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { PersistenceError } from "../shared/Errors.js"
import type { AgentId, ApiTokenId, OrganizationId, UserId, WorkspaceId } from "../shared/Ids.js"
import type { Ability } from "../shared/Principal.js"
import type { ApiToken } from "./ApiToken.js"
import type { User, Workspace } from "./Workspace.js"

export class WorkspaceRepo extends Context.Service<WorkspaceRepo, {
  readonly insert: (workspace: Workspace) => Effect.Effect<void, PersistenceError>
  readonly findById: (id: WorkspaceId) => Effect.Effect<Option.Option<Workspace>, PersistenceError>
  readonly list: Effect.Effect<ReadonlyArray<Workspace>, PersistenceError>
  /**
   * Inside a transaction: holds off other transactions that take the same lock until this one ends, so that a
   * check for "no workspace yet" and the create that follows cannot interleave with another process's.
   */
  readonly lockCreates: Effect.Effect<void, PersistenceError>
  readonly setEmailAgent: (
    id: WorkspaceId,
    agentId: AgentId | null,
    at: DateTime.Utc
  ) => Effect.Effect<void, PersistenceError>
}>()("@support-engine/core/WorkspaceRepo") {}

export class UserRepo extends Context.Service<UserRepo, {
  readonly insert: (user: User) => Effect.Effect<void, PersistenceError>
  readonly findById: (workspaceId: WorkspaceId, id: UserId) => Effect.Effect<Option.Option<User>, PersistenceError>
}>()("@support-engine/core/UserRepo") {}

/**
 * What authenticating a request reads of a token, and no more: every authenticated request reads it, and the
 * record's name and creation and update times would be decoded for nothing.
 */
export interface TokenCredential {
  readonly id: ApiTokenId
  readonly workspaceId: WorkspaceId
  /** The organization of the token's workspace: read with the token, so authenticating is one statement. */
  readonly organizationId: OrganizationId
  readonly abilities: ReadonlyArray<Ability>
  readonly expiresAt: DateTime.Utc | null
  readonly lastUsedAt: DateTime.Utc | null
  /** Lowercase hex SHA-256 of the plain token value. */
  readonly hash: string
}

export class ApiTokenRepo extends Context.Service<ApiTokenRepo, {
  readonly insert: (token: ApiToken, hash: string) => Effect.Effect<void, PersistenceError>
  /** A token's record, never its hash. */
  readonly findById: (id: ApiTokenId) => Effect.Effect<Option.Option<ApiToken>, PersistenceError>
  readonly findCredential: (id: ApiTokenId) => Effect.Effect<Option.Option<TokenCredential>, PersistenceError>
  /** A workspace's tokens (records only, never hashes), oldest first. */
  readonly listByWorkspace: (workspaceId: WorkspaceId) => Effect.Effect<ReadonlyArray<ApiToken>, PersistenceError>
  readonly delete: (id: ApiTokenId) => Effect.Effect<boolean, PersistenceError>
  readonly touch: (id: ApiTokenId, at: DateTime.Utc) => Effect.Effect<void, PersistenceError>
}>()("@support-engine/core/ApiTokenRepo") {}
