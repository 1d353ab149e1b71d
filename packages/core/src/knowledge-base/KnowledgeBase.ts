/**
 * The knowledge base: articles with translations, a revision saved before every change of a translation's
 * text, and restore. Articles record no events: no event type covers them.
 */
import { Context, type DateTime, Effect, Layer, Option, Schema } from "effect"
import { slugify } from "../agents/Agent.js"
import { NotFound, orNotFound, PersistenceError, ValidationError } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { ArticleId, RevisionId, type WorkspaceId } from "../shared/Ids.js"
import { immutableKey, planList, timestampsKey } from "../shared/Pagination.js"
import { RowLocks, writeGuard, type WriteOptions } from "../shared/Preconditions.js"
import { accessTo } from "../shared/Principal.js"
import { UniqueViolation } from "../shared/Repository.js"
import { searchTerms } from "../shared/TextSearch.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { Transactor } from "../shared/Transactor.js"
import {
  Article,
  type CreateArticle,
  type ListArticles,
  type ListRevisions,
  Locale,
  type PutTranslation,
  Revision,
  Translation,
  type TranslationInput,
  type UpdateArticle
} from "./Article.js"
import { ArticleRepo } from "./ArticleRepo.js"

/** Every operation here acts on knowledge-base: their abilities, or the broad ones, allow it. */
const { canRead, canWrite } = accessTo("knowledge-base")

const isLocale = Schema.is(Locale)

/** How many times a write is rerun after losing a race for a slug or a locale (PostgreSQL only; SQLite serialises). */
const CONFLICT_RETRIES = 20
const isConflict = (error: unknown): error is UniqueViolation => error instanceof UniqueViolation

/**
 * Reruns a whole write transaction that a concurrent one beat to a slug or a locale: the transaction rolled back, and
 * the rerun reads the other write (it picks the next free slug, updates the now existing translation, or answers 422
 * for a given slug that is now taken).
 */
const retryConflicts = <A, E, R>(
  self: Effect.Effect<A, E | UniqueViolation, R>
): Effect.Effect<A, E | PersistenceError, R> =>
  self.pipe(
    Effect.retry({ while: isConflict, times: CONFLICT_RETRIES }),
    Effect.catchIf(isConflict, (e) =>
      Effect.fail(
        new PersistenceError({
          reason: `${e.key}: conflicts after ${CONFLICT_RETRIES} retries`
        })
      ))
  )

export class KnowledgeBase extends Context.Service<KnowledgeBase>()("@support-engine/core/KnowledgeBase", {
  make: Effect.gen(function*() {
    const repo = yield* ArticleRepo
    const tx = yield* Transactor
    const ids = yield* IdGenerator
    const guard = writeGuard(yield* RowLocks, "kb_articles", Article, "Article")

    const find = (workspaceId: WorkspaceId, id: ArticleId) => repo.findById(workspaceId, id).pipe(orNotFound("Article"))

    /** The article, locked for the rest of the transaction (see `ArticleRepo.lock`). */
    const findForWrite = (workspaceId: WorkspaceId, id: ArticleId) =>
      Effect.andThen(repo.lock(workspaceId, id), find(workspaceId, id))

    /**
     * A slug for a translation: the one given (422 on `field` when another article of the workspace has it in that
     * locale), or one derived from the title, made unique with `-2`, `-3`, ….
     */
    const slugFor = (
      workspaceId: WorkspaceId,
      articleId: ArticleId | null,
      locale: string,
      title: string,
      given: string | undefined,
      field: string
    ) =>
      Effect.gen(function*() {
        const base = given ?? slugify(title)
        const taken = new Set(yield* repo.slugsLike(workspaceId, locale, base, articleId))
        if (given !== undefined) {
          return taken.has(given)
            ? yield* ValidationError.field(field, "has already been taken in this locale")
            : given
        }
        if (!taken.has(base)) return base
        let n = 2
        while (taken.has(`${base}-${n}`)) n++
        return `${base}-${n}`
      })

    const translationOf = (input: TranslationInput, slug: string, at: DateTime.Utc) =>
      new Translation({
        locale: input.locale,
        title: input.title,
        slug,
        content: input.content ?? "",
        excerpt: input.excerpt ?? null,
        seo_title: input.seo_title ?? null,
        noindex: input.noindex ?? false,
        canonical_url: input.canonical_url ?? null,
        og_image_url: input.og_image_url ?? null,
        created_at: at,
        updated_at: at
      })

    const create = Tracing.fn("KnowledgeBase.create")(function*(input: CreateArticle) {
      const principal = yield* canWrite
      const workspaceId = principal.workspaceId
      const seen = new Map<string, number>()
      for (const [i, t] of input.translations.entries()) {
        const key = t.locale.toLowerCase()
        if (seen.has(key)) {
          return yield* ValidationError.field(
            `translations.${i}.locale`,
            "must not repeat another translation's locale"
          )
        }
        seen.set(key, i)
      }
      return yield* retryConflicts(tx.withTransaction(Effect.gen(function*() {
        const at = yield* now
        const id = ArticleId.make(yield* ids.uuid)
        const translations = yield* Effect.forEach(input.translations, (t, i) =>
          Effect.map(
            slugFor(workspaceId, null, t.locale, t.title, t.slug, `translations.${i}.slug`),
            (slug) => translationOf(t, slug, at)
          ))
        const status = input.status ?? "draft"
        const article = new Article({
          id,
          category_id: input.category_id ?? null,
          position: input.position ?? null,
          status,
          published_at: status === "published" ? at : null,
          source: input.source ?? "manual",
          translations,
          created_at: at,
          updated_at: at
        })
        yield* repo.insert(workspaceId, article)
        return article
      })))
    })

    const get = Tracing.fn("KnowledgeBase.get")(function*(id: ArticleId) {
      const principal = yield* canRead
      return yield* find(principal.workspaceId, id)
    })

    /** Publishing sets `published_at`; moving back to draft clears it (the article is not published any more). */
    const update = Tracing.fn("KnowledgeBase.update")(
      function*(id: ArticleId, input: UpdateArticle, options?: WriteOptions) {
        const principal = yield* canWrite
        return yield* tx.withTransaction(Effect.gen(function*() {
          const current = yield* guard.read(options, principal.workspaceId, id, findForWrite(principal.workspaceId, id))
          const status = input.status ?? current.status
          const next = {
            category_id: input.category_id === undefined ? current.category_id : input.category_id,
            position: input.position === undefined ? current.position : input.position,
            status
          }
          if (
            next.category_id === current.category_id && next.position === current.position &&
            next.status === current.status
          ) return current
          const at = yield* now
          const updated = new Article({
            ...current,
            ...next,
            published_at: status === current.status ? current.published_at : status === "published" ? at : null,
            updated_at: at
          })
          yield* repo.update(principal.workspaceId, updated)
          return updated
        }))
      }
    )

    const revisionOf = (articleId: ArticleId, t: Translation) =>
      Effect.gen(function*() {
        return new Revision({
          id: RevisionId.make(yield* ids.uuid),
          article_id: articleId,
          locale: t.locale,
          title: t.title,
          content: t.content,
          excerpt: t.excerpt,
          created_at: yield* now
        })
      })

    /**
     * Creates the locale's translation, or saves its current title, content and excerpt as a revision and then updates
     * it. A change of SEO fields or slug alone updates without a revision: the revision keeps the text.
     */
    const putTranslation = Tracing.fn("KnowledgeBase.putTranslation")(
      function*(id: ArticleId, locale: string, input: PutTranslation) {
        const principal = yield* canWrite
        const workspaceId = principal.workspaceId
        if (!isLocale(locale)) {
          return yield* ValidationError.field("locale", "must be a locale such as en or pt-BR")
        }
        return yield* retryConflicts(tx.withTransaction(Effect.gen(function*() {
          const article = yield* findForWrite(workspaceId, id)
          const at = yield* now
          const current = article.translations.find((t) => t.locale.toLowerCase() === locale.toLowerCase())
          if (current === undefined) {
            if (input.title === undefined) {
              return yield* ValidationError.field("title", "is required for a new translation")
            }
            const slug = yield* slugFor(workspaceId, id, locale, input.title, input.slug, "slug")
            yield* repo.insertTranslation(
              workspaceId,
              id,
              translationOf({ ...input, locale, title: input.title }, slug, at)
            )
          } else {
            const next = new Translation({
              ...current,
              title: input.title ?? current.title,
              slug: input.slug === undefined || input.slug === current.slug
                ? current.slug
                : yield* slugFor(workspaceId, id, current.locale, current.title, input.slug, "slug"),
              content: input.content ?? current.content,
              excerpt: input.excerpt === undefined ? current.excerpt : input.excerpt,
              seo_title: input.seo_title === undefined ? current.seo_title : input.seo_title,
              noindex: input.noindex ?? current.noindex,
              canonical_url: input.canonical_url === undefined ? current.canonical_url : input.canonical_url,
              og_image_url: input.og_image_url === undefined ? current.og_image_url : input.og_image_url,
              updated_at: at
            })
            const textChanged = next.title !== current.title || next.content !== current.content ||
              next.excerpt !== current.excerpt
            const anyChanged = textChanged || next.slug !== current.slug || next.seo_title !== current.seo_title ||
              next.noindex !== current.noindex || next.canonical_url !== current.canonical_url ||
              next.og_image_url !== current.og_image_url
            if (!anyChanged) return article
            if (textChanged) yield* repo.insertRevision(workspaceId, yield* revisionOf(id, current))
            yield* repo.updateTranslation(workspaceId, id, next)
          }
          yield* repo.update(workspaceId, new Article({ ...article, updated_at: at }))
          return yield* find(workspaceId, id)
        })))
      }
    )

    const remove = Tracing.fn("KnowledgeBase.delete")(function*(id: ArticleId, options?: WriteOptions) {
      const principal = yield* canWrite
      const deleted = tx.withTransaction(Effect.andThen(
        guard.beforeDelete(options, principal.workspaceId, id, repo.findById(principal.workspaceId, id)),
        repo.delete(principal.workspaceId, id)
      ))
      if (!(yield* deleted)) {
        return yield* new NotFound({ resource: "Article" })
      }
    })

    const list = Tracing.fn("KnowledgeBase.list")(function*(query: ListArticles) {
      const principal = yield* canRead
      const plan = yield* planList(query, { ranked: query.q !== undefined })
      const terms = query.q === undefined ? undefined : yield* searchTerms(query.q)
      const { items, total } = yield* repo.list(principal.workspaceId, { status: query.status, terms }, plan.slice)
      return plan.page(items, total, timestampsKey)
    })

    const listRevisions = Tracing.fn("KnowledgeBase.listRevisions")(function*(id: ArticleId, query: ListRevisions) {
      const principal = yield* canRead
      yield* find(principal.workspaceId, id)
      const plan = yield* planList(query)
      const { items, total } = yield* repo.listRevisions(principal.workspaceId, id, plan.slice)
      return plan.page(items, total, immutableKey("created_at"))
    })

    /**
     * Restore: on the revision's locale, the current translation is saved as a new revision and
     * then takes the revision's title, content and excerpt; the article's status is unchanged. A revision of another
     * article or workspace is a 404.
     */
    const restore = Tracing.fn("KnowledgeBase.restore")(function*(id: ArticleId, revisionId: RevisionId) {
      const principal = yield* canWrite
      const workspaceId = principal.workspaceId
      return yield* retryConflicts(tx.withTransaction(Effect.gen(function*() {
        const article = yield* findForWrite(workspaceId, id)
        const found = yield* repo.findRevision(workspaceId, revisionId)
        if (Option.isNone(found) || found.value.article_id !== article.id) {
          return yield* new NotFound({ resource: "Revision" })
        }
        const revision = found.value
        const at = yield* now
        const current = article.translations.find((t) => t.locale === revision.locale)
        if (current === undefined) {
          // No operation removes a translation, so this is only a defensive path: the revision brings its locale back.
          const slug = yield* slugFor(workspaceId, id, revision.locale, revision.title, undefined, "slug")
          yield* repo.insertTranslation(
            workspaceId,
            id,
            translationOf(
              { locale: revision.locale, title: revision.title, content: revision.content, excerpt: revision.excerpt },
              slug,
              at
            )
          )
        } else {
          yield* repo.insertRevision(workspaceId, yield* revisionOf(id, current))
          yield* repo.updateTranslation(
            workspaceId,
            id,
            new Translation({
              ...current,
              title: revision.title,
              content: revision.content,
              excerpt: revision.excerpt,
              updated_at: at
            })
          )
        }
        yield* repo.update(workspaceId, new Article({ ...article, updated_at: at }))
        return yield* find(workspaceId, id)
      })))
    })

    return { create, get, update, putTranslation, delete: remove, list, listRevisions, restore } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
