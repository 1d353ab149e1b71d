/** `/kb-articles` (spec, D32): articles, their translations, revisions and restore. */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
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
import { Authentication } from "../shared/Authentication.js"
import { NotFoundResponse, PreconditionFailedResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, parameters, payload } from "../shared/Requests.js"

const path = idPath(ArticleId)

export class KnowledgeBaseApi extends HttpApiGroup.make("kb")
  .add(
    HttpApiEndpoint.post("create", "/kb-articles")
      .annotate(OpenApi.Summary, "Create an article")
      .setPayload(payload(CreateArticle))
      .addSuccess(Article, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("list", "/kb-articles")
      .annotate(OpenApi.Summary, "List articles")
      .setUrlParams(listQuery({ status: ListArticles.fields.status, q: ListArticles.fields.q }))
      .addSuccess(ListEnvelope(Article, "ArticleList"))
  )
  .add(
    HttpApiEndpoint.get("get", "/kb-articles/:id")
      .annotate(OpenApi.Summary, "Get an article")
      .setPath(path)
      .addSuccess(Article)
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.put("update", "/kb-articles/:id")
      .annotate(OpenApi.Summary, "Update an article")
      .setPath(path)
      .setPayload(payload(UpdateArticle))
      .addSuccess(Article)
      .addError(NotFoundResponse)
      .addError(PreconditionFailedResponse)
  )
  .add(
    HttpApiEndpoint.put("putTranslation", "/kb-articles/:id/translations/:locale")
      .annotate(OpenApi.Summary, "Create or replace a translation")
      .setPath(parameters({ id: ArticleId, locale: Locale }))
      .setPayload(payload(PutTranslation))
      .addSuccess(Article)
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.get("listRevisions", "/kb-articles/:id/revisions")
      .annotate(OpenApi.Summary, "List an article's revisions")
      .setPath(path)
      .setUrlParams(listQuery({}))
      .addSuccess(ListEnvelope(Revision, "RevisionList"))
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.post("restore", "/kb-articles/:id/revisions/:revisionId/restore")
      .annotate(OpenApi.Summary, "Restore a revision")
      .setPath(parameters({ id: ArticleId, revisionId: RevisionId }))
      .addSuccess(Article)
      .addError(NotFoundResponse)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Knowledge base")
  .annotate(
    OpenApi.Description,
    "Articles with one translation per locale. Changing a translation's title, content or excerpt saves the " +
      "previous text as a revision; restoring a revision does the same, then brings its text back."
  )
{}
