/**
 * The window of a list query as SQL: `LIMIT`/`OFFSET` in the list's order, or a keyset page that
 * starts strictly after a row's (time, id). Both read by an index whose columns are (workspace, [filter,] time, id),
 * so a keyset page costs its size at any depth.
 *
 * The keyset condition is written `t <= :at AND (t < :at OR id < :id)` rather than the row comparison
 * `(t, id) < (:at, :id)`: both databases use the first part as the index range, and it needs no row-value support.
 * Timestamps are bound in the same fixed-width ISO form they are stored in (`ts`), so SQLite's text comparison is
 * time order; PostgreSQL casts the text to `timestamptz`.
 */
import type { SliceRequest } from "@support-engine/core"
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { ts } from "./Columns.js"
import { limit } from "./Limit.js"

/** The columns a list orders by: its own time column (newest first) and the one `updated_since` reads. */
export interface KeysetColumns {
  readonly newest: string
  readonly updated: string
  readonly id?: string
}

/** Request fields of a list statement (for `SqlSchema.findAll`'s request schema). */
export const WindowFields = {
  limit: Schema.Int,
  offset: Schema.Int,
  order: Schema.Literals(["newest", "updated"]),
  after_at: Schema.NullOr(Schema.String),
  after_id: Schema.NullOr(Schema.String),
  since: Schema.NullOr(Schema.String)
}

export type Window = Schema.Struct.Type<typeof WindowFields>

export const windowOf = (slice: SliceRequest): Window => ({
  limit: slice.limit,
  offset: slice.offset,
  order: slice.order ?? "newest",
  after_at: slice.after === undefined ? null : ts(slice.after.at),
  after_id: slice.after === undefined ? null : slice.after.id,
  since: slice.since === undefined ? null : ts(slice.since)
})

/** `AND <position> ORDER BY ... LIMIT ... OFFSET ...`, to follow a `WHERE` clause. */
export const keyset = (sql: SqlClient.SqlClient, w: Window, columns: KeysetColumns) => {
  const id = sql.literal(columns.id ?? "id")
  if (w.order === "newest") {
    const t = sql.literal(columns.newest)
    const after = w.after_at === null || w.after_id === null
      ? sql``
      : sql`AND ${t} <= ${w.after_at} AND (${t} < ${w.after_at} OR ${id} < ${w.after_id})`
    return sql`${after} ORDER BY ${t} DESC, ${id} DESC ${limit(sql, w.limit, w.offset)}`
  }
  const u = sql.literal(columns.updated)
  const since = w.since === null ? sql`` : sql`AND ${u} >= ${w.since}`
  const after = w.after_at === null || w.after_id === null
    ? sql``
    : sql`AND ${u} >= ${w.after_at} AND (${u} > ${w.after_at} OR ${id} > ${w.after_id})`
  return sql`${since} ${after} ORDER BY ${u} ASC, ${id} ASC ${limit(sql, w.limit, w.offset)}`
}

/** The list's total, unless the slice is a keyset page that does not want it (then 0, unread). */
export const totalOf = <E, R>(slice: SliceRequest, count: Effect.Effect<number, E, R>): Effect.Effect<number, E, R> =>
  slice.count === false ? Effect.succeed(0) : count
