/**
 * Optimistic concurrency: every single resource has an entity tag, and a write that names the tag it was
 * based on (`If-Match`) fails with `PreconditionFailed` when the resource has changed since, changing nothing.
 *
 * The tag is a hash of the resource as the API returns it, so it changes whenever anything a client can see
 * changes (including fields the engine maintains, such as `last_seen_at`), and two reads of an unchanged resource
 * give the same tag. The check is atomic with the write: the service locks the row (`RowLocks`) inside the write's
 * transaction before it reads the current state and compares, so a concurrent write either finishes before the
 * read (and the tag differs) or waits until this transaction commits.
 */
import { Context, Effect, Option, Schema } from "effect"
import { digest } from "./Digest.js"
import { NotFound, type PersistenceError, PreconditionFailed } from "./Errors.js"
import type { WorkspaceId } from "./Ids.js"

/** The resources that have an entity tag, by the name of their table. */
export type TaggedResource =
  | "companies"
  | "customers"
  | "agents"
  | "conversations"
  | "training_data"
  | "kb_articles"
  | "webhooks"

/**
 * Storage port: holds a resource's row for the rest of the current transaction (a no-op where writes serialise).
 *
 * Every writer takes the rows of a customer's data in one order, so no two transactions wait on each other: the
 * customer, then their conversations, then the rows under those (messages, then reply jobs), the workspace's counters
 * last. Holding a conversation therefore holds its customer first; a writer that needs both asks for the
 * conversation, never for the customer after it.
 */
export class RowLocks extends Context.Service<RowLocks, {
  readonly lock: (
    resource: TaggedResource,
    workspaceId: WorkspaceId,
    id: string
  ) => Effect.Effect<void, PersistenceError>
}>()("@support-engine/core/RowLocks") {}

/** Options of a single-resource write. */
export interface WriteOptions {
  /** The value of an `If-Match` header: one or more entity tags, or `*` (any current version). */
  readonly ifMatch?: string | undefined
}

/** The strong entity tag (quoted, as HTTP sends it) of a resource's JSON text as the API returns it. */
export const entityTagOfText = (json: string): string => `"${digest(json)}"`

/** The strong entity tag (quoted, as HTTP sends it) of a resource in the JSON form the API returns. */
export const entityTagOfJson = (encoded: unknown): string => entityTagOfText(JSON.stringify(encoded))

/** The strong entity tag of `value` as `schema` encodes it. */
export const entityTag = <A, I>(schema: Schema.Codec<A, I>) => {
  const encode = Schema.encodeSync(schema)
  return (value: A): string => entityTagOfJson(encode(value))
}

/**
 * Whether an `If-Match` value matches the current tag (RFC 9110 13.1.1): `*` matches any current version; a list
 * matches when one member equals the tag by strong comparison (a weak `W/` tag never matches).
 */
export const ifMatchAccepts = (header: string, current: string): boolean => {
  const value = header.trim()
  if (value === "*") return true
  return value.split(",").some((member) => member.trim() === current)
}

/**
 * The `If-Match` check of one resource type, for its service (which yields `RowLocks` once).
 *
 * `read` gives the current state for a write; with `If-Match` it first locks the row (inside the caller's
 * transaction) and fails with `PreconditionFailed` unless the current state's tag matches. `beforeDelete` does
 * the same for a delete that does not otherwise read the row (`NotFound` when it is gone).
 */
export const writeGuard = <A, I>(
  locks: RowLocks["Service"],
  resource: TaggedResource,
  schema: Schema.Codec<A, I>,
  name: string
) => {
  const tagOf = entityTag(schema)
  const read = <E, R>(
    options: WriteOptions | undefined,
    workspaceId: WorkspaceId,
    id: string,
    current: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | PersistenceError | PreconditionFailed, R> => {
    const ifMatch = options?.ifMatch
    if (ifMatch === undefined) return current
    return Effect.gen(function*() {
      yield* locks.lock(resource, workspaceId, id)
      const value = yield* current
      if (!ifMatchAccepts(ifMatch, tagOf(value))) return yield* new PreconditionFailed()
      return value
    })
  }
  const beforeDelete = <E, R>(
    options: WriteOptions | undefined,
    workspaceId: WorkspaceId,
    id: string,
    current: Effect.Effect<Option.Option<A>, E, R>
  ): Effect.Effect<void, E | NotFound | PersistenceError | PreconditionFailed, R> =>
    options?.ifMatch === undefined ? Effect.void : Effect.asVoid(read(
      options,
      workspaceId,
      id,
      Effect.flatMap(
        current,
        (found) => Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new NotFound({ resource: name }))
      )
    ))
  return { read, beforeDelete, tagOf } as const
}
