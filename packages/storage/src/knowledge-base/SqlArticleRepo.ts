/** Knowledge-base articles, translations and revisions on `effect/sql`. */
import {
  Article,
  ArticleCategoryId,
  ArticleId,
  ArticleRepo,
  ArticleSource,
  ArticleStatus,
  Model,
  Revision,
  RevisionId,
  Translation,
  WorkspaceId
} from "@support-engine/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbBoolean, DbInt, DbTimestamp, params, ts, tsOrNull } from "../shared/Columns.js"
import { Counters } from "../shared/Counters.js"
import { keyset, totalOf, WindowFields, windowOf } from "../shared/Keyset.js"
import { limit as limitClause } from "../shared/Limit.js"
import { mapSqlError, orUnique } from "../shared/SqlErrors.js"
import { matchExpression } from "../shared/TextSearch.js"

const ArticleRow = Schema.Struct({
  id: ArticleId,
  category_id: Schema.NullOr(ArticleCategoryId),
  position: Model.nullFirst(DbInt),
  status: ArticleStatus,
  published_at: Model.nullFirst(DbTimestamp),
  source: ArticleSource,
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})
const TranslationRow = Schema.Struct({
  article_id: ArticleId,
  locale: Schema.String,
  title: Schema.String,
  slug: Schema.String,
  content: Schema.String,
  excerpt: Schema.NullOr(Schema.String),
  seo_title: Schema.NullOr(Schema.String),
  noindex: DbBoolean,
  canonical_url: Schema.NullOr(Schema.String),
  og_image_url: Schema.NullOr(Schema.String),
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})
const RevisionRow = Schema.Struct({
  id: RevisionId,
  article_id: ArticleId,
  locale: Schema.String,
  title: Schema.String,
  content: Schema.String,
  excerpt: Schema.NullOr(Schema.String),
  created_at: DbTimestamp
})

const COUNTER = "kb_articles"
const REVISION_COLUMNS = "id, article_id, locale, title, content, excerpt, created_at"

export const SqlArticleRepoLive: Layer.Layer<ArticleRepo, never, SqlClient.SqlClient | Counters> = Layer.effect(
  ArticleRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const counters = yield* Counters
    const p = params(sql)
    const revisionColumns = sql.literal(REVISION_COLUMNS)

    const translationsOf = SqlSchema.findAll({
      Request: Schema.Array(ArticleId),
      Result: TranslationRow,
      execute: (ids) =>
        sql`SELECT * FROM kb_article_translations WHERE ${
          sql.in("article_id", ids)
        } ORDER BY created_at, position, locale`
    })
    /**
     * Article rows to articles, with their translations read in one query for the whole page: in creation order,
     * those created by one request in the request's order (`position`, migration 0019), as the create answer lists
     * them.
     */
    const withTranslations = (rows: ReadonlyArray<typeof ArticleRow.Type>) =>
      rows.length === 0
        ? Effect.succeed([])
        : Effect.map(translationsOf(rows.map((r) => r.id)), (translations) =>
          rows.map((row) =>
            new Article({
              ...row,
              translations: translations.filter((t) => t.article_id === row.id).map(({ article_id: _, ...t }) =>
                new Translation(t)
              )
            })
          ))

    const ARTICLE_COLUMNS = sql.literal(
      "id, category_id, position, status, published_at, source, created_at, updated_at"
    )
    const ARTICLE_PREFIXED = sql.literal(
      "a.id, a.category_id, a.position, a.status, a.published_at, a.source, a.created_at, a.updated_at"
    )
    const findById = SqlSchema.findAll({
      Request: Schema.Struct({ workspace_id: WorkspaceId, id: ArticleId }),
      Result: ArticleRow,
      execute: (r) =>
        sql`SELECT ${ARTICLE_COLUMNS} FROM kb_articles WHERE workspace_id = ${r.workspace_id} AND id = ${r.id}`
    })
    const page = SqlSchema.findAll({
      Request: Schema.Struct({
        workspace_id: WorkspaceId,
        status: Schema.optional(Schema.String),
        ...WindowFields
      }),
      Result: ArticleRow,
      execute: (r) =>
        sql`SELECT ${ARTICLE_COLUMNS} FROM kb_articles WHERE workspace_id = ${r.workspace_id}
            ${r.status === undefined ? sql`` : sql`AND status = ${r.status}`}
            ${keyset(sql, r, { newest: "created_at", updated: "updated_at" })}`
    })
    // Search: articles with a matching translation (migration 0015), best match first. PostgreSQL folds the query's
    // diacritics as it folds the documents (migration 0032); SQLite's tokenizer folds both.
    const SearchRequest = Schema.Struct({
      workspace_id: WorkspaceId,
      status: Schema.optional(Schema.String),
      match: Schema.String
    })
    const searchBody = (r: typeof SearchRequest.Encoded) =>
      sql`(${
        sql.onDialectOrElse({
          pg: () =>
            sql`SELECT s.article_id, MIN(-ts_rank(s.document, to_tsquery('simple', support_search_fold(${r.match}))))
                AS score FROM kb_translation_text_search s
                WHERE s.document @@ to_tsquery('simple', support_search_fold(${r.match})) GROUP BY s.article_id`,
          orElse: () =>
            // bm25 cannot be aggregated: score each translation in a subquery that SQLite must not flatten into the
            // GROUP BY (a LIMIT keeps it apart), then take each article's best.
            sql`SELECT article_id, MIN(score) AS score FROM (SELECT k.article_id, bm25(kb_translation_text_search)
                AS score FROM kb_translation_text_search
                JOIN kb_translation_text_search_keys k ON k.search_rowid = kb_translation_text_search.rowid
                WHERE kb_translation_text_search MATCH ${r.match} LIMIT -1) hits GROUP BY article_id`
        })
      }) best JOIN kb_articles a ON a.id = best.article_id WHERE a.workspace_id = ${r.workspace_id}
      ${r.status === undefined ? sql`` : sql`AND a.status = ${r.status}`}`
    const searchPage = SqlSchema.findAll({
      Request: Schema.Struct({ ...SearchRequest.fields, limit: Schema.Int, offset: Schema.Int }),
      Result: ArticleRow,
      execute: ({ limit, offset, ...r }) =>
        sql`SELECT ${ARTICLE_PREFIXED} FROM ${searchBody(r)}
            ORDER BY best.score, a.created_at DESC, a.id DESC ${limitClause(sql, limit, offset)}`
    })
    const searchCount = SqlSchema.findOne({
      Request: SearchRequest,
      Result: Schema.Struct({ total: DbInt }),
      execute: (r) => sql`SELECT COUNT(*) AS total FROM ${searchBody(r)}`
    })
    const countStatus = SqlSchema.findOne({
      Request: Schema.Struct({ workspace_id: WorkspaceId, status: Schema.String }),
      Result: Schema.Struct({ total: DbInt }),
      execute: (r) =>
        sql`SELECT COUNT(*) AS total FROM kb_articles WHERE workspace_id = ${r.workspace_id} AND status = ${r.status}`
    })
    const findRevision = SqlSchema.findOneOption({
      Request: Schema.Struct({ workspace_id: WorkspaceId, id: RevisionId }),
      Result: RevisionRow,
      execute: (r) =>
        sql`SELECT ${revisionColumns} FROM kb_article_revisions WHERE workspace_id = ${r.workspace_id} AND id = ${r.id}`
    })
    const revisionPage = SqlSchema.findAll({
      Request: Schema.Struct({
        workspace_id: WorkspaceId,
        article_id: ArticleId,
        ...WindowFields
      }),
      Result: RevisionRow,
      // Revisions never change: `updated_since` reads `created_at`.
      execute: (r) =>
        sql`SELECT ${revisionColumns} FROM kb_article_revisions WHERE workspace_id = ${r.workspace_id}
            AND article_id = ${r.article_id} ${keyset(sql, r, { newest: "created_at", updated: "created_at" })}`
    })
    const revisionCount = SqlSchema.findOne({
      Request: Schema.Struct({ workspace_id: WorkspaceId, article_id: ArticleId }),
      Result: Schema.Struct({ total: DbInt }),
      execute: (r) =>
        sql`SELECT COUNT(*) AS total FROM kb_article_revisions WHERE workspace_id = ${r.workspace_id}
            AND article_id = ${r.article_id}`
    })

    const translationRow = (workspaceId: WorkspaceId, articleId: ArticleId, t: Translation, position: number) => ({
      article_id: articleId,
      position,
      workspace_id: workspaceId,
      locale: t.locale,
      title: t.title,
      slug: t.slug,
      content: t.content,
      excerpt: t.excerpt,
      seo_title: t.seo_title,
      noindex: p.bool(t.noindex),
      canonical_url: t.canonical_url,
      og_image_url: t.og_image_url,
      created_at: ts(t.created_at),
      updated_at: ts(t.updated_at)
    })

    /** The only unique indexes a translation write can hit are (article_id, locale) and (workspace_id, locale, slug). */
    const conflict = orUnique("kb_article_translations.locale_slug")

    const insertAt = (workspaceId: WorkspaceId, articleId: ArticleId, t: Translation, position: number) =>
      sql`INSERT INTO kb_article_translations ${sql.insert(translationRow(workspaceId, articleId, t, position))}`.pipe(
        Effect.asVoid,
        conflict
      )
    const nextPosition = SqlSchema.findOne({
      Request: ArticleId,
      Result: Schema.Struct({ next: DbInt }),
      execute: (articleId) =>
        sql`SELECT COALESCE(MAX(position) + 1, 0) AS next FROM kb_article_translations WHERE article_id = ${articleId}`
    })
    /** A translation added later goes after the article's others (the caller holds the article's row lock). */
    const insertTranslation = (workspaceId: WorkspaceId, articleId: ArticleId, t: Translation) =>
      nextPosition(articleId).pipe(
        mapSqlError,
        Effect.flatMap(({ next }) => insertAt(workspaceId, articleId, t, next))
      )

    return ArticleRepo.of({
      insert: (workspaceId, a) =>
        sql`INSERT INTO kb_articles (id, workspace_id, category_id, position, status, published_at, source,
            created_at, updated_at) VALUES (${a.id}, ${workspaceId}, ${a.category_id}, ${a.position}, ${a.status},
            ${tsOrNull(a.published_at)}, ${a.source}, ${ts(a.created_at)}, ${ts(a.updated_at)})`.pipe(
          mapSqlError,
          Effect.andThen(Effect.forEach(a.translations, (t, i) => insertAt(workspaceId, a.id, t, i))),
          Effect.andThen(counters.add(workspaceId, COUNTER, 1))
        ),
      findById: (workspaceId, id) =>
        findById({ workspace_id: workspaceId, id }).pipe(
          Effect.flatMap(withTranslations),
          Effect.map((articles) => Option.fromNullishOr(articles[0])),
          mapSqlError
        ),
      lock: (workspaceId, id) =>
        sql.onDialectOrElse({
          pg: () =>
            sql`SELECT id FROM kb_articles WHERE workspace_id = ${workspaceId} AND id = ${id} FOR UPDATE`.pipe(
              Effect.asVoid,
              mapSqlError
            ),
          // SQLite: the one connection runs one transaction at a time, so writes to an article are already serial.
          orElse: () => Effect.void
        }),
      update: (workspaceId, a) =>
        sql`UPDATE kb_articles SET category_id = ${a.category_id}, position = ${a.position}, status = ${a.status},
            published_at = ${tsOrNull(a.published_at)}, updated_at = ${ts(a.updated_at)}
            WHERE workspace_id = ${workspaceId} AND id = ${a.id}`.pipe(Effect.asVoid, mapSqlError),
      insertTranslation,
      updateTranslation: (workspaceId, articleId, t) =>
        sql`UPDATE kb_article_translations SET title = ${t.title}, slug = ${t.slug}, content = ${t.content},
            excerpt = ${t.excerpt}, seo_title = ${t.seo_title}, noindex = ${p.bool(t.noindex)},
            canonical_url = ${t.canonical_url}, og_image_url = ${t.og_image_url}, updated_at = ${ts(t.updated_at)}
            WHERE workspace_id = ${workspaceId} AND article_id = ${articleId} AND locale = ${t.locale}`.pipe(
          Effect.asVoid,
          conflict
        ),
      delete: (workspaceId, id) =>
        sql`DELETE FROM kb_articles WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`.pipe(
          mapSqlError,
          Effect.flatMap((rows) =>
            rows.length === 0 ? Effect.succeed(false) : Effect.as(counters.add(workspaceId, COUNTER, -1), true)
          )
        ),
      list: (workspaceId, filter, slice) =>
        filter.terms !== undefined
          ? Effect.all({
            items: searchPage({
              workspace_id: workspaceId,
              status: filter.status,
              match: matchExpression(sql, filter.terms),
              limit: slice.limit,
              offset: slice.offset
            }).pipe(Effect.flatMap(withTranslations), mapSqlError),
            total: searchCount({
              workspace_id: workspaceId,
              status: filter.status,
              match: matchExpression(sql, filter.terms)
            }).pipe(Effect.map((r) => r.total), mapSqlError)
          })
          : Effect.all({
            items: page({ workspace_id: workspaceId, status: filter.status, ...windowOf(slice) }).pipe(
              Effect.flatMap(withTranslations),
              mapSqlError
            ),
            total: totalOf(
              slice,
              filter.status === undefined
                ? counters.get(workspaceId, COUNTER)
                : countStatus({ workspace_id: workspaceId, status: filter.status }).pipe(
                  Effect.map((r) => r.total),
                  mapSqlError
                )
            )
          }),
      slugsLike: (workspaceId, locale, base, except) =>
        sql<{ readonly slug: string }>`SELECT slug FROM kb_article_translations WHERE workspace_id = ${workspaceId}
            AND locale = ${locale} AND (slug = ${base} OR slug LIKE ${`${base}-%`})
            ${except === null ? sql`` : sql`AND article_id <> ${except}`}`.pipe(
          Effect.map((rows) => rows.map((r) => r.slug)),
          mapSqlError
        ),
      insertRevision: (workspaceId, r) =>
        sql`INSERT INTO kb_article_revisions (id, workspace_id, article_id, locale, title, content, excerpt,
            created_at) VALUES (${r.id}, ${workspaceId}, ${r.article_id}, ${r.locale}, ${r.title}, ${r.content},
            ${r.excerpt}, ${ts(r.created_at)})`.pipe(Effect.asVoid, mapSqlError),
      findRevision: (workspaceId, id) =>
        findRevision({ workspace_id: workspaceId, id }).pipe(
          Effect.map(Option.map((row) => new Revision(row, { disableChecks: true }))),
          mapSqlError
        ),
      listRevisions: (workspaceId, articleId, slice) =>
        Effect.all({
          items: revisionPage({ workspace_id: workspaceId, article_id: articleId, ...windowOf(slice) }).pipe(
            Effect.map((rows) => rows.map((row) => new Revision(row, { disableChecks: true }))),
            mapSqlError
          ),
          total: totalOf(
            slice,
            revisionCount({ workspace_id: workspaceId, article_id: articleId }).pipe(
              Effect.map((r) => r.total),
              mapSqlError
            )
          )
        })
    })
  })
)
