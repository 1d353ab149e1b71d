/** Storage port of idempotency keys: one recorded outcome per workspace and key, kept 24 hours. */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { PersistenceError } from "../shared/Errors.js"
import type { WorkspaceId } from "../shared/Ids.js"

/** What a first request answered, to answer its retries with. */
export interface IdempotentOutcome {
  readonly status: number
  readonly body: string
  /** Response headers worth repeating (content type, ETag). */
  readonly headers: Readonly<Record<string, string>>
}

export interface StoredOutcome extends IdempotentOutcome {
  /** A digest of what the first request asked for (method, path, body): another request may not reuse the key. */
  readonly fingerprint: string
}

export class IdempotencyStore extends Context.Service<IdempotencyStore, {
  /**
   * Inside the caller's transaction: claims the key for the rest of it, or answers false at once when another
   * transaction (perhaps in another process) holds it. Never waits.
   */
  readonly claim: (workspaceId: WorkspaceId, key: string) => Effect.Effect<boolean, PersistenceError>
  /** The outcome recorded under the key, unless it expired before `now`. */
  readonly find: (
    workspaceId: WorkspaceId,
    key: string,
    now: DateTime.Utc
  ) => Effect.Effect<Option.Option<StoredOutcome>, PersistenceError>
  /** Records the outcome (replacing an expired one), and drops some expired keys on the way. */
  readonly save: (
    workspaceId: WorkspaceId,
    key: string,
    outcome: StoredOutcome,
    now: DateTime.Utc,
    expiresAt: DateTime.Utc
  ) => Effect.Effect<void, PersistenceError>
}>()("@support-engine/core/IdempotencyStore") {}
