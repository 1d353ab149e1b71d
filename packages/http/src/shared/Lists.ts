/**
 * List endpoints (D16, D17, D52): query parameters parsed from strings, and the list envelope with absolute links
 * built from the request URL (core returns `data` and `meta` without them).
 */
import { HttpServerRequest } from "@effect/platform"
import { CursorToken, type Page, PageNumber, PerPage, Timestamp } from "@support-engine/core"
import { Context, Effect, Option, Schema, SchemaAST } from "effect"
import { PublicUrl, underPublicUrl } from "./PublicUrl.js"
import { parameters } from "./Requests.js"

/**
 * A query integer as OpenAPI should show it: `integer` with the bounds of its refinements. On the wire it is a
 * string that the schema parses, so Effect's JSON Schema of it says `string`, which misleads generated clients.
 */
const integerParameter = <A, I, R>(schema: Schema.Schema<A, I, R>): Schema.Schema<A, I, R> => {
  const bounds: Record<string, unknown> = {}
  for (let ast = schema.ast; SchemaAST.isRefinement(ast); ast = ast.from) {
    const annotation = SchemaAST.getJSONSchemaAnnotation(ast)
    if (Option.isSome(annotation)) Object.assign(bounds, annotation.value, bounds)
  }
  const { maximum, minimum } = bounds
  return schema.annotations({
    jsonSchema: {
      type: "integer",
      ...(typeof minimum === "number" ? { minimum } : {}),
      ...(typeof maximum === "number" ? { maximum } : {})
    }
  })
}

/** `page` (≥ 1) and `per_page` (1..100) from the query string; absent keeps core's defaults 1 and 15 (D16). */
export const PageQuery = {
  page: Schema.optionalWith(integerParameter(PageNumber), { exact: true }).annotations({
    description: "Page number, an integer from 1 to 1,000,000 in decimal digits (default 1)"
  }),
  per_page: Schema.optionalWith(integerParameter(PerPage), { exact: true }).annotations({
    description: "Items per page, an integer from 1 to 100 in decimal digits (default 15)"
  }),
  cursor: Schema.optionalWith(CursorToken, { exact: true }).annotations({
    description: "Continue after the last row of a previous page: that answer's `meta.next_cursor` (opaque). " +
      "Not with `page`."
  }),
  updated_since: Schema.optionalWith(Timestamp, { exact: true }).annotations({
    description: "Sync: only rows updated at or after this RFC 3339 time, oldest first by `updated_at` then id; " +
      "continue with `cursor`. Not with `page`."
  })
}

/** Query-string schema of a list: page fields plus the list's filters, every error reported (D13). */
export const listQuery = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  parameters({ ...PageQuery, ...fields })

export const Links = Schema.Struct({
  first: Schema.NullOr(Schema.String),
  last: Schema.NullOr(Schema.String),
  prev: Schema.NullOr(Schema.String),
  next: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ListLinks", description: "Absolute URLs keeping the other query parameters" })

/** Page numbers and totals are null on a cursor or `updated_since` page (D52), which is read by key, not counted. */
export const ListMeta = Schema.Struct({
  current_page: Schema.NullOr(Schema.Int),
  from: Schema.NullOr(Schema.Int),
  last_page: Schema.NullOr(Schema.Int),
  path: Schema.String,
  per_page: Schema.Int,
  to: Schema.NullOr(Schema.Int),
  total: Schema.NullOr(Schema.Int),
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description: "Pass as `cursor` to read the next page; null on the last page"
  }),
  truncated: Schema.optional(Schema.Literal(true)).annotations({
    description: "Present when the page holds fewer than per_page items because the next item would have taken it " +
      "past 4 MiB of JSON; links.next and next_cursor continue right after the last item served"
  })
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
 * The absolute URL of the request when no public URL is set (a handler mounted in another framework's server): a
 * web request knows its own (`originalUrl`); a node request is rebuilt from its `Host` header.
 */
const absoluteUrl = (request: HttpServerRequest.HttpServerRequest): URL => {
  if (URL.canParse(request.originalUrl)) return new URL(request.url, request.originalUrl)
  return Option.getOrElse(HttpServerRequest.toURL(request), () => new URL(request.url, "http://localhost"))
}

/**
 * A core page as the D17 envelope for the current request: absolute links keeping every other query parameter.
 * A keyset page (no page numbers) links only forward, by cursor; `first` restarts the same listing.
 */
export const toList = <A>(page: Page<A>): Effect.Effect<List<A>, never, HttpServerRequest.HttpServerRequest> =>
  Effect.map(Effect.context<HttpServerRequest.HttpServerRequest>(), (context) => {
    const request = Context.get(context, HttpServerRequest.HttpServerRequest)
    const publicUrl = Context.get(context, PublicUrl)
    // D51: on the configured public address when there is one (the standalone server always has one), so the
    // Host header never reaches a link.
    const url = Option.match(publicUrl, {
      onNone: () => absoluteUrl(request),
      onSome: (base) => underPublicUrl(base, request.url)
    })
    const { meta } = page
    const link = (set: Record<string, string | null>): string => {
      const target = new URL(url)
      for (const [key, value] of Object.entries(set)) {
        if (value === null) target.searchParams.delete(key)
        else target.searchParams.set(key, value)
      }
      return target.toString()
    }
    const links = meta.current_page === null || meta.last_page === null
      ? {
        first: link({ page: null, cursor: null }),
        last: null,
        prev: null,
        next: meta.next_cursor === null ? null : link({ page: null, cursor: meta.next_cursor })
      }
      : {
        first: link({ page: "1" }),
        last: link({ page: String(meta.last_page) }),
        prev: meta.current_page > 1 ? link({ page: String(meta.current_page - 1) }) : null,
        // A page cut by the byte budget continues by cursor: the next page number would skip what did not fit.
        next: meta.truncated === true && meta.next_cursor !== null
          ? link({ page: null, cursor: meta.next_cursor })
          : meta.current_page < meta.last_page
          ? link({ page: String(meta.current_page + 1) })
          : null
      }
    return {
      data: page.data,
      links,
      meta: {
        current_page: meta.current_page,
        from: meta.from,
        last_page: meta.last_page,
        path: `${url.origin}${url.pathname}`,
        per_page: meta.per_page,
        to: meta.to,
        total: meta.total,
        next_cursor: meta.next_cursor,
        ...(meta.truncated === true ? { truncated: true as const } : {})
      }
    }
  })
