/**
 * The retention port: deletes one batch of old rows. Each call runs inside the caller's transaction, touches at
 * most `limit` rows of its table, skips rows another process holds (so several processes can prune one database
 * side by side), and keeps what the rules below keep.
 */
import { Context, type DateTime, type Effect } from "effect"
import type { PersistenceError } from "../shared/Errors.js"

export interface PrunedDeliveries {
  readonly deliveries: number
  readonly attempts: number
}

export class RetentionStore extends Context.Service<RetentionStore, {
  /**
   * Deletes at most `limit` finished deliveries (delivered, failed, cancelled) last changed before `before`, with
   * their attempts. A pending delivery, claimed or not, is never deleted.
   */
  readonly pruneDeliveries: (before: DateTime.Utc, limit: number) => Effect.Effect<PrunedDeliveries, PersistenceError>
  /**
   * Deletes at most `limit` events recorded before `before` that no delivery carries and whose deliveries are all
   * made, keeping the workspace's event count exact and remembering, per workspace, the newest event deleted (so an
   * incremental read from a deleted event still works). Returns how many were deleted.
   */
  readonly pruneEvents: (before: DateTime.Utc, limit: number) => Effect.Effect<number, PersistenceError>
}>()("@support-engine/core/RetentionStore") {}
