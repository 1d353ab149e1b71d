import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { types } from "../shared/Columns.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = types(sql)
  yield* sql.unsafe(`CREATE TABLE kb_articles (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    category_id ${t.id},
    position ${t.int},
    status TEXT NOT NULL,
    published_at ${t.ts},
    source TEXT NOT NULL,
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX kb_articles_order ON kb_articles (workspace_id, created_at DESC, id DESC)`)
  yield* sql.unsafe(`CREATE INDEX kb_articles_status ON kb_articles (workspace_id, status, created_at DESC, id DESC)`)
  yield* sql.unsafe(`CREATE TABLE kb_article_translations (
    article_id ${t.id} NOT NULL REFERENCES kb_articles (id) ON DELETE CASCADE,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    locale TEXT NOT NULL,
    title TEXT NOT NULL,
    slug TEXT NOT NULL,
    content TEXT NOT NULL,
    excerpt TEXT,
    seo_title TEXT,
    noindex ${t.bool} NOT NULL,
    canonical_url TEXT,
    og_image_url TEXT,
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL,
    PRIMARY KEY (article_id, locale)
  )`)
  yield* sql.unsafe(`CREATE UNIQUE INDEX kb_translations_slug ON kb_article_translations (workspace_id, locale, slug)`)
  yield* sql.unsafe(`CREATE TABLE kb_article_revisions (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    article_id ${t.id} NOT NULL REFERENCES kb_articles (id) ON DELETE CASCADE,
    locale TEXT NOT NULL,
    title TEXT NOT NULL,
    content TEXT NOT NULL,
    excerpt TEXT,
    created_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(
    `CREATE INDEX kb_revisions_article ON kb_article_revisions (workspace_id, article_id, created_at DESC, id DESC)`
  )
})
