/** Knowledge-base articles, their translations and revisions (spec "Knowledge-base article"). */
import { Schema } from "effect"
import { ArticleCategoryId, ArticleId, RevisionId } from "../shared/Ids.js"
import * as Model from "../shared/Model.js"
import { PageRequest } from "../shared/Pagination.js"
import { SearchText } from "../shared/TextSearch.js"
import { NullableTimestamp, Timestamp } from "../shared/Timestamp.js"
import { BoundedString, HttpUrl, Text } from "../shared/Validation.js"

export const ArticleStatus = Schema.Literals(["draft", "published"])
/** `github` is the lowercase name of the code-hosting integration the specification refers to. */
export const ArticleSource = Schema.Literals(["manual", "auto_generated", "mcp", "github"])

export class Translation extends Model.Class<Translation>("Translation")({
  locale: Schema.String,
  title: Schema.String,
  slug: Schema.String,
  content: Schema.String,
  excerpt: Schema.NullOr(Schema.String),
  seo_title: Schema.NullOr(Schema.String),
  noindex: Schema.Boolean,
  canonical_url: Schema.NullOr(Schema.String),
  og_image_url: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

export class Article extends Model.Class<Article>("Article")({
  id: ArticleId,
  category_id: Schema.NullOr(ArticleCategoryId),
  position: Schema.NullOr(Schema.Int),
  status: ArticleStatus,
  published_at: NullableTimestamp,
  source: ArticleSource,
  translations: Schema.Array(Translation),
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

export class Revision extends Model.Class<Revision>("Revision")({
  id: RevisionId,
  article_id: ArticleId,
  locale: Schema.String,
  title: Schema.String,
  content: Schema.String,
  excerpt: Schema.NullOr(Schema.String),
  created_at: Timestamp
}) {}

/**
 * A BCP 47-style tag (`en`, `pt-BR`, `zh-Hant`), at most 10 characters like a customer's locale. The patterns here
 * are `u` RegExps because Effect writes a pattern into JSON Schema (OpenAPI) only for those; on ASCII classes the
 * flag changes nothing.
 */
export const Locale = BoundedString(10).check(
  Schema.isPattern(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/u, { message: "must be a locale such as en or pt-BR" })
)
/** A URL path segment. Bounded at 255, not the usual 65,535: it is a key of a unique index (PostgreSQL caps those). */
export const Slug = BoundedString(255).check(
  Schema.isPattern(/^[a-z0-9]+(-[a-z0-9]+)*$/u, { message: "must be lower-case letters, digits and dashes" })
)
const Title = Text.check(Schema.isMinLength(1))
/** An ordering key; at most the largest 32-bit integer, what every SQL dialect's INTEGER holds. */
const Position = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2_147_483_647 }))

// The specification lists no bound for these: the default 65,535 characters.
const translationFields = {
  slug: Schema.optionalKey(Slug),
  content: Schema.optionalKey(Text),
  excerpt: Schema.optionalKey(Schema.NullOr(Text)),
  seo_title: Schema.optionalKey(Schema.NullOr(Text)),
  noindex: Schema.optionalKey(Schema.Boolean),
  canonical_url: Schema.optionalKey(Schema.NullOr(HttpUrl)),
  og_image_url: Schema.optionalKey(Schema.NullOr(HttpUrl))
}

export class TranslationInput extends Model.Class<TranslationInput>("TranslationInput")({
  locale: Locale,
  title: Title,
  ...translationFields
}) {}

/** `POST /kb-articles`: at least one translation, one per locale. */
export class CreateArticle extends Model.Class<CreateArticle>("CreateArticle")({
  category_id: Schema.optionalKey(Schema.NullOr(ArticleCategoryId)),
  position: Schema.optionalKey(Schema.NullOr(Position)),
  status: Schema.optionalKey(ArticleStatus),
  source: Schema.optionalKey(ArticleSource),
  translations: Schema.Array(TranslationInput).check(Schema.isMinLength(1), Schema.isMaxLength(100))
}) {}

/** `PUT /kb-articles/{id}`: category, position, status. */
export class UpdateArticle extends Model.Class<UpdateArticle>("UpdateArticle")({
  category_id: Schema.optionalKey(Schema.NullOr(ArticleCategoryId)),
  position: Schema.optionalKey(Schema.NullOr(Position)),
  status: Schema.optionalKey(ArticleStatus)
}) {}

/** `PUT /kb-articles/{id}/translations/{locale}`: creates the translation, or revises and updates it. */
export class PutTranslation extends Model.Class<PutTranslation>("PutTranslation")({
  title: Schema.optionalKey(Title),
  ...translationFields
}) {}

export class ListArticles extends Model.Class<ListArticles>("ListArticles")({
  ...PageRequest.fields,
  status: Schema.optionalKey(ArticleStatus),
  /** Search the title, excerpt and content of every translation: every word as a prefix, best first. */
  q: Schema.optionalKey(SearchText)
}) {}

export class ListRevisions extends Model.Class<ListRevisions>("ListRevisions")({
  ...PageRequest.fields
}) {}
