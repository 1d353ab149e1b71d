/** Shapes shared by the repository ports. */
import type { DateTime } from "effect"
import type { ListOrder } from "./Cursor.js"
import type { PageRequest } from "./Pagination.js"

/**
 * A window of rows of a list query read by index (D18, D52): `LIMIT`/`OFFSET` in the list's order, or, for a
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
