/**
 * List endpoints (D16, D17): query parameters parsed from strings, and the list envelope with absolute links
 * built from the request URL (core returns `data` and `meta` without them).
 */
import { HttpServerRequest } from "@effect/platform"
import { type Page, PageNumber, PerPage } from "@support-engine/core"
import { Effect, Option, Schema } from "effect"

/** `page` (≥ 1) and `per_page` (1..100) from the query string; absent keeps core's defaults 1 and 15 (D16). */
export const PageQuery = {
  page: Schema.optionalWith(PageNumber, { exact: true }).annotations({
    description: "Page number, an integer of at least 1 (default 1)"
  }),
  per_page: Schema.optionalWith(PerPage, { exact: true }).annotations({
    description: "Items per page, an integer from 1 to 100 (default 15)"
  })
}

/** Query-string schema of a list: page fields plus the list's filters, every error reported (D13). */
export const listQuery = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.Struct({ ...PageQuery, ...fields }).annotations({ parseOptions: { errors: "all" } })

export const Links = Schema.Struct({
  first: Schema.NullOr(Schema.String),
  last: Schema.NullOr(Schema.String),
  prev: Schema.NullOr(Schema.String),
  next: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ListLinks", description: "Absolute URLs keeping the other query parameters" })

export const ListMeta = Schema.Struct({
  current_page: Schema.Int,
  from: Schema.NullOr(Schema.Int),
  last_page: Schema.Int,
  path: Schema.String,
  per_page: Schema.Int,
  to: Schema.NullOr(Schema.Int),
  total: Schema.Int
}).annotations({ identifier: "ListMeta" })

/** The D17 envelope of `item`. */
export const ListEnvelope = <A, I, R>(item: Schema.Schema<A, I, R>, identifier: string) =>
  Schema.Struct({ data: Schema.Array(item), links: Links, meta: ListMeta }).annotations({ identifier })

export interface List<A> {
  readonly data: ReadonlyArray<A>
  readonly links: typeof Links.Type
  readonly meta: typeof ListMeta.Type
}

/**
 * The absolute URL of the request: a web request knows its own (`originalUrl`); a node request is rebuilt from
 * its `Host` header, with `https` behind a proxy that sets `X-Forwarded-Proto`.
 */
const absoluteUrl = (request: HttpServerRequest.HttpServerRequest): URL => {
  if (URL.canParse(request.originalUrl)) return new URL(request.url, request.originalUrl)
  return Option.getOrElse(HttpServerRequest.toURL(request), () => new URL(request.url, "http://localhost"))
}

/** A core page as the D17 envelope for the current request: absolute links keeping every other query parameter. */
export const toList = <A>(page: Page<A>): Effect.Effect<List<A>, never, HttpServerRequest.HttpServerRequest> =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const url = absoluteUrl(request)
    const { meta } = page
    const link = (n: number): string => {
      const target = new URL(url)
      target.searchParams.set("page", String(n))
      return target.toString()
    }
    return {
      data: page.data,
      links: {
        first: link(1),
        last: link(meta.last_page),
        prev: meta.current_page > 1 ? link(meta.current_page - 1) : null,
        next: meta.current_page < meta.last_page ? link(meta.current_page + 1) : null
      },
      meta: {
        current_page: meta.current_page,
        from: meta.from,
        last_page: meta.last_page,
        path: `${url.origin}${url.pathname}`,
        per_page: meta.per_page,
        to: meta.to,
        total: meta.total
      }
    }
  })
