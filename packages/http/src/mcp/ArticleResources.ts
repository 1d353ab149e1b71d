/**
 * Published knowledge-base articles as MCP resources, for clients that attach documents to a conversation with the
 * model: `support://articles/{id}` (every translation) and `support://articles/{id}/{locale}` (the translation in
 * that language, when the article has one), as the JSON `get_article` answers.
 */
import { Article, ArticleId, KnowledgeBase, Locale } from "@support-engine/core"
import { Effect, Layer, Schema } from "effect"
import { McpSchema, McpServer } from "effect/ai"
import { inLocale, publishedArticle } from "./KnowledgeBaseTools.js"
import { asTool } from "./ToolAccess.js"

export const ARTICLE_TEMPLATE = "support://articles/{id}"
export const ARTICLE_IN_LOCALE_TEMPLATE = "support://articles/{id}/{locale}"

const DESCRIPTION = "A published help-center article of the workspace, with its translations (title, content, " +
  "excerpt, slug per locale), as JSON."

export const ArticleResourcesLive = Layer.unwrap(Effect.gen(function*() {
  const kb = yield* KnowledgeBase
  const encode = Schema.encodeEffect(Article)
  /** The article as a resource's one JSON item; a failure is the tool's `CODE: message`, sent as a JSON-RPC error. */
  const read = (uri: string, id: ArticleId, locale: string | undefined) =>
    asTool(publishedArticle(kb, id)).pipe(
      Effect.flatMap((article) => Effect.orDie(encode(inLocale(article, locale)))),
      Effect.map((json) => ({ contents: [{ uri, mimeType: "application/json", text: JSON.stringify(json) }] }))
    )
  return Layer.mergeAll(
    McpServer.resource`support://articles/${McpSchema.param("id", ArticleId)}`({
      name: "article",
      description: DESCRIPTION,
      mimeType: "application/json",
      content: (uri, id) => read(uri, id, undefined)
    }),
    McpServer.resource`support://articles/${McpSchema.param("id", ArticleId)}/${McpSchema.param("locale", Locale)}`({
      name: "article-in-locale",
      description: `${DESCRIPTION} Only the translation in {locale} (such as en or pt-BR), when it has one.`,
      mimeType: "application/json",
      content: (uri, id, locale) => read(uri, id, locale)
    })
  )
}))
