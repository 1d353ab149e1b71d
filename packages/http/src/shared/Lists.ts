/**
 * List endpoints: query parameters parsed from strings, and the list envelope with absolute links
 * built from the request URL (core returns `data` and `meta` without them).
 */
import { CursorToken, type Page, PageNumber, PerPage, Timestamp } from "@support-engine/core"
import { Context, Effect, Option, Schema } from "effect"
import { HttpServerRequest } from "effect/http"
import { PublicUrl, underPublicUrl } from "./PublicUrl.js"
import { parameters } from "./Requests.js"

const PAGE_DESCRIPTION = "Page number, an integer from 1 to 1,000,000 in decimal digits (default 1)"
const PER_PAGE_DESCRIPTION = "Items per page, an integer from 1 to 100 in decimal digits (default 15)"
const CURSOR_DESCRIPTION =
  "Continue after the last row of a previous page: that answer's `meta.next_cursor` (opaque). " +
  "Not with `page`."
const UPDATED_SINCE_DESCRIPTION = "Sync: only rows updated at or after this RFC 3339 time, oldest first by " +
  "`updated_at` then id; continue with `cursor`. Not with `page`."

/** `page` (≥ 1) and `per_page` (1..100) from the query string; absent keeps core's defaults 1 and 15. */
export const PageQuery = {
  page: Schema.optionalKey(PageNumber).annotate({ description: PAGE_DESCRIPTION }),
  per_page: Schema.optionalKey(PerPage).annotate({ description: PER_PAGE_DESCRIPTION }),
  cursor: Schema.optionalKey(CursorToken).annotate({ description: CURSOR_DESCRIPTION }),
  updated_since: Schema.optionalKey(Timestamp).annotate({ description: UPDATED_SINCE_DESCRIPTION })
}

/**
 * The list parameters as OpenAPI should show them. On the wire `page` and `per_page` are strings that the API
 * parses, so the document HttpApi generates says `string`, which misleads generated clients: they are shown as the
 * integers they stand for, with their bounds. And a parameter whose schema is a reference (a `Timestamp`) loses
 * its description there. The document's corrections (OpenApiDocument.ts) apply these.
 */
export const LIST_PARAMETERS: Readonly<
  Record<string, { readonly description: string; readonly schema?: Readonly<Record<string, unknown>> }>
> = {
  page: { description: PAGE_DESCRIPTION, schema: Schema.toJsonSchemaDocument(Schema.toType(PageNumber)).schema },
  per_page: { description: PER_PAGE_DESCRIPTION, schema: Schema.toJsonSchemaDocument(Schema.toType(PerPage)).schema },
  cursor: { description: CURSOR_DESCRIPTION },
  updated_since: { description: UPDATED_SINCE_DESCRIPTION }
}

/** Query-string schema of a list: page fields plus the list's filters, every error reported. */
export const listQuery = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  parameters({ ...PageQuery, ...fields })

export const Links = Schema.Struct({
  first: Schema.NullOr(Schema.String),
  last: Schema.NullOr(Schema.String),
  prev: Schema.NullOr(Schema.String),
  next: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ListLinks", description: "Absolute URLs keeping the other query parameters" })

/** Page numbers and totals are null on a cursor or `updated_since` page, which is read by key, not counted. */
export const ListMeta = Schema.Struct({
  current_page: Schema.NullOr(Schema.Int),
  from: Schema.NullOr(Schema.Int),
  last_page: Schema.NullOr(Schema.Int),
  path: Schema.String,
  per_page: Schema.Int,
  to: Schema.NullOr(Schema.Int),
  total: Schema.NullOr(Schema.Int),
  next_cursor: Schema.NullOr(Schema.String).annotate({
    description: "Pass as `cursor` to read the next page; null on the last page"
  }),
  truncated: Schema.optionalKey(Schema.Literal(true)).annotate({
    description: "Present when the page holds fewer than per_page items because the next item would have taken it " +
      "past 4 MiB of JSON; links.next and next_cursor continue right after the last item served"
  })
}).annotate({ identifier: "ListMeta" })

/** The list envelope (`data`, `links`, `meta`) of `item`. */
export const ListEnvelope = <S extends Schema.Top>(item: S, identifier: string) =>
  Schema.Struct({ data: Schema.Array(item), links: Links, meta: ListMeta }).annotate({ identifier })

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
 * A core page as the list envelope for the current request: absolute links keeping every other query parameter.
 * A keyset page (no page numbers) links only forward, by cursor; `first` restarts the same listing.
 */
export const toList = <A>(page: Page<A>): Effect.Effect<List<A>, never, HttpServerRequest.HttpServerRequest> =>
  Effect.map(Effect.context<HttpServerRequest.HttpServerRequest>(), (context) => {
    const request = Context.get(context, HttpServerRequest.HttpServerRequest)
    const publicUrl = Context.get(context, PublicUrl)
    // On the configured public address when there is one (the standalone server always has one), so the
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
