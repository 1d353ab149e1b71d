/** Storage port for knowledge-base articles, translations and revisions. Scoped by workspace (D11). */
import { Context, type Effect, type Option } from "effect"
import type { Article, ArticleStatus, Revision, Translation } from "./Article.js"
import type { PersistenceError } from "./Errors.js"
import type { ArticleId, RevisionId, WorkspaceId } from "./Ids.js"
import type { Slice, SliceRequest } from "./Repository.js"

export class ArticleRepo extends Context.Tag("@support-engine/core/ArticleRepo")<ArticleRepo, {
  /** Inserts the article and its translations. */
  readonly insert: (workspaceId: WorkspaceId, article: Article) => Effect.Effect<void, PersistenceError>
  readonly findById: (
    workspaceId: WorkspaceId,
    id: ArticleId
  ) => Effect.Effect<Option.Option<Article>, PersistenceError>
  /** Writes the article's own fields (not its translations). */
  readonly update: (workspaceId: WorkspaceId, article: Article) => Effect.Effect<void, PersistenceError>
  readonly putTranslation: (
    workspaceId: WorkspaceId,
    articleId: ArticleId,
    translation: Translation
  ) => Effect.Effect<void, PersistenceError>
  readonly delete: (workspaceId: WorkspaceId, id: ArticleId) => Effect.Effect<boolean, PersistenceError>
  readonly list: (
    workspaceId: WorkspaceId,
    filter: { readonly status?: typeof ArticleStatus.Type | undefined },
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
  /** Newest first. */
  readonly listRevisions: (
    workspaceId: WorkspaceId,
    articleId: ArticleId,
    slice: SliceRequest
  ) => Effect.Effect<Slice<Revision>, PersistenceError>
}>() {}
