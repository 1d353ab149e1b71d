/** Shapes shared by the repository ports. */
import { type DateTime, Schema } from "effect"
import type { ListOrder } from "./Cursor.js"
import type { PageRequest } from "./Pagination.js"

/**
 * A window of rows of a list query read by index: `LIMIT`/`OFFSET` in the list's order, or, for a
 * keyset page, the rows strictly after `after` in `order` (offset 0).
 */
export interface SliceRequest {
  readonly limit: number
  readonly offset: number
  /** `newest` (default): newest first by the list's time column; `updated`: oldest first by `updated_at`. */
  readonly order?: ListOrder | undefined
  /** The last row already seen (a cursor's position). */
  readonly after?: { readonly at: DateTime.Utc; readonly id: string } | undefined
  /** Only rows with `updated_at` at or after this time (`updated_since`). */
  readonly since?: DateTime.Utc | undefined
  /** Whether the total is wanted; keyset pages skip it (false). Default true. */
  readonly count?: boolean | undefined
}

export const sliceOf = (page: PageRequest): SliceRequest => ({ limit: page.per_page, offset: page.offset })

/** A window of rows and the total the list has (from a counter or a covered index, never a table scan). */
export interface Slice<A> {
  readonly items: ReadonlyArray<A>
  /** 0 when the request said `count: false`. */
  readonly total: number
}

/**
 * The one way a repository reports a unique conflict: a write hit a unique index. `key` names the index as
 * `<table>.<columns>` (`agents.slug`, `customers.email`, `kb_article_translations.locale_slug`); the port says which
 * keys a method can hit, and the service decides what the conflict means (a retry, or a 422 on a field). The index is
 * the backstop: services check first, so this only happens when a concurrent transaction got there first.
 */
export class UniqueViolation extends Schema.TaggedError<UniqueViolation>()("UniqueViolation", {
  key: Schema.String
}) {}

/**
 * A write referred to a row that a concurrent transaction deleted (a foreign key refused it). `key` names the column
 * as `<table>.<column>`.
 */
export class ForeignKeyViolation extends Schema.TaggedError<ForeignKeyViolation>()("ForeignKeyViolation", {
  key: Schema.String
}) {}
