/** Shapes shared by the repository ports. */
import type { PageRequest } from "./Pagination.js"

/** A window of rows: `LIMIT`/`OFFSET` of a list query read by index (D18). */
export interface SliceRequest {
  readonly limit: number
  readonly offset: number
}

export const sliceOf = (page: PageRequest): SliceRequest => ({ limit: page.per_page, offset: page.offset })

/** A window of rows and the total the list has (from a counter or a covered index, never a table scan). */
export interface Slice<A> {
  readonly items: ReadonlyArray<A>
  readonly total: number
}
