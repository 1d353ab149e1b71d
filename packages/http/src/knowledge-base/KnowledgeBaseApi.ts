/** `/kb-articles`: articles, their translations, revisions and restore. */
import {
  Article,
  ArticleId,
  CreateArticle,
  ListArticles,
  Locale,
  PutTranslation,
  Revision,
  RevisionId,
  UpdateArticle
} from "@support-engine/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../shared/Authentication.js"
import { NotFoundResponse, PreconditionFailedResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, parameters, payload } from "../shared/Requests.js"

const path = idPath(ArticleId)

export class KnowledgeBaseApi extends HttpApiGroup.make("kb")
  .add(
    HttpApiEndpoint.post("create", "/kb-articles", {
      payload: payload(CreateArticle),
      success: Article.pipe(HttpApiSchema.status(201))
    }).annotate(OpenApi.Summary, "Create an article")
  )
  .add(
    HttpApiEndpoint.get("list", "/kb-articles", {
      query: listQuery({ status: ListArticles.fields.status, q: ListArticles.fields.q }),
      success: ListEnvelope(Article, "ArticleList")
    }).annotate(OpenApi.Summary, "List articles")
  )
  .add(
    HttpApiEndpoint.get("get", "/kb-articles/:id", { params: path, success: Article, error: NotFoundResponse })
      .annotate(OpenApi.Summary, "Get an article")
  )
  .add(
    HttpApiEndpoint.put("update", "/kb-articles/:id", {
      params: path,
      payload: payload(UpdateArticle),
      success: Article,
      error: [NotFoundResponse, PreconditionFailedResponse]
    }).annotate(OpenApi.Summary, "Update an article")
  )
  .add(
    HttpApiEndpoint.put("putTranslation", "/kb-articles/:id/translations/:locale", {
      params: parameters({ id: ArticleId, locale: Locale }),
      payload: payload(PutTranslation),
      success: Article,
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "Create or replace a translation")
  )
  .add(
    HttpApiEndpoint.get("listRevisions", "/kb-articles/:id/revisions", {
      params: path,
      query: listQuery({}),
      success: ListEnvelope(Revision, "RevisionList"),
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "List an article's revisions")
  )
  .add(
    HttpApiEndpoint.post("restore", "/kb-articles/:id/revisions/:revisionId/restore", {
      params: parameters({ id: ArticleId, revisionId: RevisionId }),
      success: Article,
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "Restore a revision")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Knowledge base")
  .annotate(
    OpenApi.Description,
    "Articles with one translation per locale. Changing a translation's title, content or excerpt saves the " +
      "previous text as a revision; restoring a revision does the same, then brings its text back."
  )
{}
