/**
 * MCP tools over the published knowledge base: the reads of `/v1/kb-articles`, limited to
 * published articles (a draft answers as if it did not exist), optionally in one language.
 */
import {
  Article,
  ArticleId,
  KnowledgeBase,
  ListArticles,
  Locale,
  NotFound,
  Principal,
  SearchText
} from "@support-engine/core"
import { Effect, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { DEFAULT_LIMIT, SearchLimit, SearchResult } from "./ConversationTools.js"
import { asTool, ToolFailed } from "./ToolAccess.js"

const locale = Locale.annotate({
  description: "A language such as en or pt-BR: each article shows only its translation in it, when it has one."
})

/** The article with only its `locale` translation, when it has one; else as it is. */
export const inLocale = (article: Article, wanted: string | undefined): Article => {
  if (wanted === undefined) return article
  const matching = article.translations.filter((t) => t.locale.toLowerCase() === wanted.toLowerCase())
  return matching.length === 0 ? article : new Article({ ...article, translations: matching })
}

const SearchKnowledgeBase = Tool.make("search_knowledge_base", {
  description: "Search the workspace's published help-center articles (title, excerpt and content of every " +
    "translation). Use it to find the documented answer to a customer's question before replying. Returns `data` " +
    "(articles with their translations: locale, title, slug, content, excerpt; best match first) and `meta` (total " +
    "count and paging).",
  parameters: Schema.Struct({
    query: SearchText.annotate({ description: "Words to search for (each word matches as a prefix)." }),
    locale: Schema.optionalKey(locale),
    limit: Schema.optionalKey(SearchLimit)
  }),
  success: SearchResult(Article),
  failure: ToolFailed,
  dependencies: [Principal]
}).annotate(Tool.Title, "Search the knowledge base").annotate(Tool.Readonly, true).annotate(Tool.Destructive, false)

const GetArticle = Tool.make("get_article", {
  description: "Read one published help-center article with its translations (title, content, excerpt, slug per " +
    "locale). Use it to quote or link the documented answer. Returns the article.",
  parameters: Schema.Struct({
    article_id: ArticleId.annotate({ description: "The article's id (a UUID)." }),
    locale: Schema.optionalKey(locale)
  }),
  success: Article,
  failure: ToolFailed,
  dependencies: [Principal]
}).annotate(Tool.Title, "Get an article").annotate(Tool.Readonly, true).annotate(Tool.Destructive, false)

export const KnowledgeBaseTools = Toolkit.make(SearchKnowledgeBase, GetArticle)

/** A published article of the principal's workspace; a draft, like a missing one, is not found. */
export const publishedArticle = (kb: KnowledgeBase["Service"], id: ArticleId) =>
  Effect.filterOrFail(
    kb.get(id),
    (article) => article.status === "published",
    () => new NotFound({ resource: "Article" })
  )

export const KnowledgeBaseToolsLive = KnowledgeBaseTools.toLayer(Effect.gen(function*() {
  const kb = yield* KnowledgeBase
  return KnowledgeBaseTools.of({
    search_knowledge_base: ({ limit, locale, query }) =>
      asTool(Effect.map(
        kb.list(new ListArticles({ q: query, status: "published", per_page: limit ?? DEFAULT_LIMIT })),
        ({ data, meta }) => ({ data: data.map((article) => inLocale(article, locale)), meta })
      )),
    get_article: ({ article_id, locale }) =>
      asTool(Effect.map(publishedArticle(kb, article_id), (a) => inLocale(a, locale)))
  })
}))
