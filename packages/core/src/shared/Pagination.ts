/**
 * Page requests and pages. `links` are an HTTP concern (absolute URLs) and added by the adapter;
 * `meta` is computed here so in-process callers see the same numbers.
 *
 * A list runs in one of two modes. Page numbers: `page` and `per_page`, newest first, with totals. Keyset:
 * a `cursor` from a previous answer's `meta.next_cursor`, or `updated_since` for sync (oldest first by
 * `updated_at`, then id); each page starts strictly after the last row of the previous one, so rows inserted or
 * deleted meanwhile never make a row appear twice or be skipped, and a page costs its size at any depth. Keyset
 * pages carry no totals (counting would cost the whole table on every page); their page-number fields are null.
 * Every answer, page numbers included, carries `meta.next_cursor` (null at the end), so a client may start with
 * page 1 and continue by cursor.
 */
import { type DateTime, Effect, Schema, SchemaTransformation } from "effect"
import { decodeCursor, encodeCursor, type ListOrder } from "./Cursor.js"
import { ValidationError } from "./Errors.js"
import * as Model from "./Model.js"
import { fittingCount } from "./PageBytes.js"
import type { SliceRequest } from "./Repository.js"
import { Timestamp } from "./Timestamp.js"

/** The highest page number a list accepts: a deeper offset is a scan no client needs; cursors go further. */
export const MAX_PAGE = 1_000_000

/**
 * A query integer: decimal digits only. `Schema.NumberFromString` takes anything `Number()` reads (`0x10`,
 * `1e1`, `+5`, `5.0`), which a client must not rely on, and `1e15` passed its integer check.
 */
export const DecimalInt = Schema.String.check(
  Schema.isPattern(/^[0-9]{1,16}$/, { message: "must be a whole number in decimal digits" })
).pipe(Schema.decodeTo(Schema.Number, SchemaTransformation.numberFromString))
export const PerPage = DecimalInt.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 100 }))
export const PageNumber = DecimalInt.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: MAX_PAGE }))
/** A cursor as clients send it back: opaque, and never longer than what the engine makes. */
export const CursorToken = Schema.String.check(Schema.isMaxLength(512))

/** `page`, `per_page`, `cursor` and `updated_since` as typed values. */
export class PageRequest extends Model.Class<PageRequest>("PageRequest")({
  /** Absent means 1; sent together with `cursor` or `updated_since`, a 422. */
  page: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_PAGE }))),
  per_page: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 })).pipe(Model.withDefault(() => 15)),
  cursor: Schema.optionalKey(CursorToken),
  updated_since: Schema.optionalKey(Timestamp)
}) {
  get offset(): number {
    return ((this.page ?? 1) - 1) * this.per_page
  }
  static readonly first = new PageRequest({})
}

export class PageMeta extends Model.Class<PageMeta>("PageMeta")({
  current_page: Schema.NullOr(Schema.Int),
  from: Schema.NullOr(Schema.Int),
  last_page: Schema.NullOr(Schema.Int),
  per_page: Schema.Int,
  to: Schema.NullOr(Schema.Int),
  total: Schema.NullOr(Schema.Int),
  /** Where the next page starts; null on the last page. */
  next_cursor: Schema.NullOr(Schema.String),
  /**
   * Present (true) when the page holds fewer than `per_page` items because the next one would have taken it past the
   * byte budget (PageBytes.ts); `next_cursor` continues right after the last item served.
   */
  truncated: Schema.optionalKey(Schema.Literal(true))
}) {}

export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly meta: PageMeta
}

/** A row's place in both orders: its list's time column, its `updated_at`, and its id. */
export interface SortKey {
  readonly newest: DateTime.Utc
  readonly updated: DateTime.Utc
  readonly id: string
}

/** How a list request reads its rows and turns them into a page. */
export interface ListPlan {
  /** What to ask the repository for: one row more than the page, to learn whether another page follows. */
  readonly slice: SliceRequest
  readonly page: <A>(rows: ReadonlyArray<A>, total: number, key: (a: A) => SortKey) => Page<A>
}

/** The subset of a list query that pagination reads; every `List*` request class has these fields. */
export interface PageFields {
  readonly page?: number | undefined
  readonly per_page: number
  readonly cursor?: string | undefined
  readonly updated_since?: DateTime.Utc | undefined
}

const pageWithKeyset = (other: string) =>
  ValidationError.field("page", `cannot be combined with ${other}; continue with cursor`)
const wrongOrder = ValidationError.field("cursor", "belongs to a listing in another order")

const rankedWithKeyset = ValidationError.field(
  "q",
  "The q field cannot be combined with cursor or updated_since; search results are paged by page number."
)

/**
 * Checks the mode of a list request and plans its read. A `ranked` list (a search, `q`) is ordered by
 * relevance, which has no keyset: it takes page numbers only and answers no cursor.
 */
export const planList = (
  request: PageFields,
  options: { readonly ranked?: boolean } = {}
): Effect.Effect<ListPlan, ValidationError> =>
  Effect.gen(function*() {
    const perPage = request.per_page
    if (options.ranked === true && (request.cursor !== undefined || request.updated_since !== undefined)) {
      return yield* rankedWithKeyset
    }
    if (request.cursor !== undefined && request.page !== undefined) return yield* pageWithKeyset("cursor")
    if (request.updated_since !== undefined && request.page !== undefined) {
      return yield* pageWithKeyset("updated_since")
    }
    const position = request.cursor === undefined ? undefined : yield* decodeCursor(request.cursor)
    const order: ListOrder = position?.order ?? (request.updated_since === undefined ? "newest" : "updated")
    if (position !== undefined && request.updated_since !== undefined && order !== "updated") return yield* wrongOrder
    const keyset = position !== undefined || request.updated_since !== undefined
    const page = request.page ?? 1
    const offset = keyset ? 0 : (page - 1) * perPage
    const slice: SliceRequest = {
      limit: perPage + 1,
      offset,
      order,
      after: position === undefined ? undefined : { at: position.at, id: position.id },
      since: request.updated_since,
      count: !keyset
    }
    const cursorAfter = (last: SortKey): string =>
      encodeCursor({ order, at: order === "newest" ? last.newest : last.updated, id: last.id })
    return {
      slice,
      page: <A>(rows: ReadonlyArray<A>, total: number, key: (a: A) => SortKey): Page<A> => {
        const full = rows.length > perPage ? rows.slice(0, perPage) : rows
        const fitting = fittingCount(full)
        const truncated = fitting < full.length
        const data = truncated ? full.slice(0, fitting) : full
        // Cut short by the byte budget, a page continues after its last item even where a full one would not
        // (a search, which has no keyset, continues by page number and skips what did not fit: docs/limits.md).
        const more = truncated || rows.length > perPage
        const next_cursor = more && options.ranked !== true ? cursorAfter(key(data[data.length - 1] as A)) : null
        const cut = truncated ? { truncated: true as const } : {}
        if (keyset) {
          return {
            data,
            meta: new PageMeta({
              current_page: null,
              from: null,
              last_page: null,
              per_page: perPage,
              to: null,
              total: null,
              next_cursor,
              ...cut
            })
          }
        }
        return makePage(data, total, new PageRequest({ page, per_page: perPage }), next_cursor, truncated)
      }
    }
  })

/** A page of `data` out of `total` items; a page past the end is empty. */
export const makePage = <A>(
  data: ReadonlyArray<A>,
  total: number,
  request: PageRequest,
  nextCursor: string | null = null,
  truncated = false
): Page<A> => {
  const from = data.length === 0 ? null : request.offset + 1
  return {
    data,
    meta: new PageMeta({
      current_page: request.page ?? 1,
      from,
      last_page: Math.max(1, Math.ceil(total / request.per_page)),
      per_page: request.per_page,
      to: from === null ? null : from + data.length - 1,
      total,
      next_cursor: nextCursor,
      ...(truncated ? { truncated: true as const } : {})
    })
  }
}

/** A page schema for a resource, for adapters and the Promise facade. */
export const PageSchema = <S extends Schema.Top>(item: S) => Schema.Struct({ data: Schema.Array(item), meta: PageMeta })

/** The sort key of a resource listed by `created_at` and synced by `updated_at` (most lists). */
export const timestampsKey = (a: {
  readonly created_at: DateTime.Utc
  readonly updated_at: DateTime.Utc
  readonly id: string
}): SortKey => ({ newest: a.created_at, updated: a.updated_at, id: a.id })

/** The sort key of a resource that never changes after it is stored: both orders read one column. */
export const immutableKey =
  <K extends string>(column: K) =>
  <A extends { readonly [k in K]: DateTime.Utc } & { readonly id: string }>(a: A): SortKey => ({
    newest: a[column],
    updated: a[column],
    id: a.id
  })
