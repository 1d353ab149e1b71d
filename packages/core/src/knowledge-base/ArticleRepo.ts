/** Storage port for knowledge-base articles, translations and revisions. Scoped by workspace. */
import { Context, type Effect, type Option } from "effect"
import type { PersistenceError } from "../shared/Errors.js"
import type { ArticleId, RevisionId, WorkspaceId } from "../shared/Ids.js"
import type { Slice, SliceRequest, UniqueViolation } from "../shared/Repository.js"
import type { Article, ArticleStatus, Revision, Translation } from "./Article.js"

/**
 * Translation writes fail with `UniqueViolation` `kb_article_translations.locale_slug` when the slug is taken in its
 * locale, or the locale was added to the article by a concurrent write. The service chose a free slug and a missing
 * locale when it read, so this only happens when another transaction got there first; the service reruns its
 * transaction, which then sees the other write.
 */
export class ArticleRepo extends Context.Service<ArticleRepo, {
  /** Inserts the article and its translations. */
  readonly insert: (
    workspaceId: WorkspaceId,
    article: Article
  ) => Effect.Effect<void, PersistenceError | UniqueViolation>
  readonly findById: (
    workspaceId: WorkspaceId,
    id: ArticleId
  ) => Effect.Effect<Option.Option<Article>, PersistenceError>
  /**
   * Holds the article's row until the transaction ends, so that concurrent writes to one article run one after the
   * other and each reads what the previous one wrote (a revision never misses a version). Nothing when absent.
   */
  readonly lock: (workspaceId: WorkspaceId, id: ArticleId) => Effect.Effect<void, PersistenceError>
  /** Writes the article's own fields (not its translations). */
  readonly update: (workspaceId: WorkspaceId, article: Article) => Effect.Effect<void, PersistenceError>
  readonly insertTranslation: (
    workspaceId: WorkspaceId,
    articleId: ArticleId,
    translation: Translation
  ) => Effect.Effect<void, PersistenceError | UniqueViolation>
  /** Rewrites the translation of `translation.locale`. */
  readonly updateTranslation: (
    workspaceId: WorkspaceId,
    articleId: ArticleId,
    translation: Translation
  ) => Effect.Effect<void, PersistenceError | UniqueViolation>
  /** Deletes the article with its translations and revisions. False when absent. */
  readonly delete: (workspaceId: WorkspaceId, id: ArticleId) => Effect.Effect<boolean, PersistenceError>
  /** Newest first (`created_at` desc, `id` desc); unfiltered `total` from the workspace counter. */
  readonly list: (
    workspaceId: WorkspaceId,
    filter: {
      readonly status?: typeof ArticleStatus.Type | undefined
      /** Search words: articles with a matching translation, best first. */
      readonly terms?: ReadonlyArray<string> | undefined
    },
    slice: SliceRequest
  ) => Effect.Effect<Slice<Article>, PersistenceError>
  /** Slugs of the workspace's translations in `locale` that are `base` or `base-N`, other than `except`'s. */
  readonly slugsLike: (
    workspaceId: WorkspaceId,
    locale: string,
    base: string,
    except: ArticleId | null
  ) => Effect.Effect<ReadonlyArray<string>, PersistenceError>
  readonly insertRevision: (workspaceId: WorkspaceId, revision: Revision) => Effect.Effect<void, PersistenceError>
  readonly findRevision: (
    workspaceId: WorkspaceId,
    id: RevisionId
  ) => Effect.Effect<Option.Option<Revision>, PersistenceError>
  /** The article's revisions, newest first (`created_at` desc, `id` desc). */
  readonly listRevisions: (
    workspaceId: WorkspaceId,
    articleId: ArticleId,
    slice: SliceRequest
  ) => Effect.Effect<Slice<Revision>, PersistenceError>
}>()("@support-engine/core/ArticleRepo") {}
