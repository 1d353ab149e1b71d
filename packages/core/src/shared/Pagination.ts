/**
 * Page requests and pages (D16-D18). `links` are an HTTP concern (absolute URLs) and added by the adapter;
 * `meta` is computed here so in-process callers see the same numbers.
 */
import { Schema } from "effect"
import * as Model from "./Model.js"

export const PerPage = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100))
export const PageNumber = Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1))

/** `page` and `per_page` as typed values (D16). Query strings are parsed by the adapter's own schema. */
export class PageRequest extends Model.Class<PageRequest>("PageRequest")({
  page: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)), { default: () => 1 }),
  per_page: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 100)), { default: () => 15 })
}) {
  get offset(): number {
    return (this.page - 1) * this.per_page
  }
  static readonly first = new PageRequest({})
}

export class PageMeta extends Model.Class<PageMeta>("PageMeta")({
  current_page: Schema.Int,
  from: Schema.NullOr(Schema.Int),
  last_page: Schema.Int,
  per_page: Schema.Int,
  to: Schema.NullOr(Schema.Int),
  total: Schema.Int
}) {}

export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly meta: PageMeta
}

/** A page of `data` out of `total` items; a page past the end is empty (D16). */
export const makePage = <A>(data: ReadonlyArray<A>, total: number, request: PageRequest): Page<A> => {
  const from = data.length === 0 ? null : request.offset + 1
  return {
    data,
    meta: new PageMeta({
      current_page: request.page,
      from,
      last_page: Math.max(1, Math.ceil(total / request.per_page)),
      per_page: request.per_page,
      to: from === null ? null : from + data.length - 1,
      total
    })
  }
}

/** A page schema for a resource, for adapters and the Promise facade. */
export const PageSchema = <A, I, R>(item: Schema.Schema<A, I, R>) =>
  Schema.Struct({ data: Schema.Array(item), meta: PageMeta })
