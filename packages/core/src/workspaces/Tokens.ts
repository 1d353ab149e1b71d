/**
 * API tokens: issued and revoked by a host (no principal), and `authenticate`, which turns a bearer value into the
 * principal every `/v1` call runs as. Only a token's hash is stored; its plain value is shown once, when issued.
 */
import { Context, DateTime, Effect, Layer, Option, Redacted } from "effect"
import { hash, timingSafeEqual } from "node:crypto"
import { NotFound, Unauthenticated, ValidationError } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import type { WorkspaceId } from "../shared/Ids.js"
import { ApiTokenId } from "../shared/Ids.js"
import { Actor, Principal, type PrincipalShape } from "../shared/Principal.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { decodeRequest } from "../shared/Validation.js"
import { ApiToken, CreateApiToken, TokenInfo } from "./ApiToken.js"
import { ApiTokenRepo } from "./WorkspaceRepo.js"
import { Workspaces } from "./Workspaces.js"

const TOKEN_SECRET_LENGTH = 40
const LAST_USED_RESOLUTION_MS = 60_000
const URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** Lowercase hex SHA-256 of a plain token value: what is stored and compared. */
// `crypto.hash` (Node 20.12+): one call, no `Hash` object made per request.
export const hashToken = (plain: string): string => hash("sha256", plain, "hex")

/** A created token: the record and its plain value, shown this once. */
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

    /** Deletes a token; it is invalid from the next request on. */
    const revoke = Tracing.fn("Tokens.revoke")(function*(id: ApiTokenId) {
      const deleted = yield* repo.delete(id)
      if (!deleted) return yield* new NotFound({ resource: "API token" })
    })

    /**
     * Resolves a bearer value to its principal: unknown, malformed, expired or deleted tokens are all
     * `Unauthenticated`, with the same message, and the hash comparison is constant-time.
     */
    const authenticate = Tracing.fn("Tokens.authenticate")(function*(plain: Redacted.Redacted<string>) {
      const value = Redacted.value(plain)
      const separator = value.indexOf("|")
      const rawId = value.slice(0, separator)
      if (separator !== 36 || !ApiTokenIdPattern.test(rawId)) return yield* new Unauthenticated()
      const stored = yield* repo.findCredential(ApiTokenId.make(rawId))
      if (Option.isNone(stored)) return yield* new Unauthenticated()
      const credential = stored.value
      const expected = Buffer.from(credential.hash, "hex")
      const actual = hash("sha256", value, "buffer")
      if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return yield* new Unauthenticated()
      const at = yield* now
      if (credential.expiresAt !== null && DateTime.isLessThanOrEqualTo(credential.expiresAt, at)) {
        return yield* new Unauthenticated()
      }
      // A read must not cost a write on every request: last_used_at is kept to the minute.
      if (
        credential.lastUsedAt === null ||
        at.epochMilliseconds - credential.lastUsedAt.epochMilliseconds >= LAST_USED_RESOLUTION_MS
      ) {
        yield* repo.touch(credential.id, at)
      }
      return {
        workspaceId: credential.workspaceId,
        organizationId: credential.organizationId,
        abilities: credential.abilities,
        actor: Actor.apiToken(credential.id)
      } satisfies PrincipalShape
    })

    /** A token's record (without its hash), for provisioning tools. */
    const get = Tracing.fn("Tokens.get")(function*(id: ApiTokenId) {
      const stored = yield* repo.findById(id)
      if (Option.isNone(stored)) return yield* new NotFound({ resource: "API token" })
      return stored.value
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
      if (Option.isNone(stored) || stored.value.workspace_id !== principal.workspaceId) {
        return yield* new NotFound({ resource: "API token" })
      }
      const token = stored.value
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

/** Input decoder for untyped callers (CLI, Promise API). */
export const decodeCreateApiToken = decodeRequest(CreateApiToken)
