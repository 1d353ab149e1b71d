/**
 * Content written before the passage index followed languages (migration 0031) is searchable by language once it
 * runs (D61): English stems, folded diacritics, and a training item's words and English stems, on each database. The
 * article list's search folds the diacritics of those articles too once migration 0032 has run, and the customer and
 * conversation lists those of customers, subjects and messages once migration 0033 has.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { AgentId, ArticleRepo, ConversationRepo, CustomerRepo, PassageIndex, WorkspaceId } from "@support-engine/core"
import { Effect, Layer } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlPassageIndexLive } from "../src/ai/SqlPassageIndex.js"
import { SqlConversationRepoLive } from "../src/conversations/SqlConversationRepo.js"
import { SqlCustomerRepoLive } from "../src/customers/SqlCustomerRepo.js"
import { SqlArticleRepoLive } from "../src/knowledge-base/SqlArticleRepo.js"
import { Counters } from "../src/shared/Counters.js"
import { migrate, migrations } from "../src/shared/Migrations.js"
import { clientLayer } from "../src/Storage.js"
import { adminUrl, createDatabase } from "./PgDatabase.js"

const workspace = WorkspaceId.make("6b1f4c52-0d7e-4f7a-9d3e-3f1c2a4b5c6d")
const article = "0c9a7e3b-5d1f-4a2b-8c6d-7e8f9a0b1c2d"
const item = "1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a"
const customer = "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b"
const conversation = "3f4a5b6c-7d8e-4f9a-0b1c-2d3e4f5a6b7c"
const message = "4a5b6c7d-8e9f-4a0b-1c2d-3e4f5a6b7c8d"
const NOW = "2026-01-01T00:00:00.000Z"
const TRANSLATIONS = [
  ["en", "Money back", "We refund every order shipped within thirty days."],
  ["fr", "Remboursement", "Le remboursement est effectué sous cinq jours."]
] as const

const before = Migrator.make({})({
  loader: Migrator.fromRecord(Object.fromEntries(Object.entries(migrations).filter(([id]) => id < "0031"))),
  table: "support_engine_migrations"
})

const seed = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO workspaces (id, name, organization_id, created_at, updated_at)
    VALUES (${workspace}, 'Acme', ${workspace}, ${NOW}, ${NOW})`
  yield* sql`INSERT INTO kb_articles (id, workspace_id, status, source, created_at, updated_at)
    VALUES (${article}, ${workspace}, 'published', 'manual', ${NOW}, ${NOW})`
  for (const [locale, title, content] of TRANSLATIONS) {
    yield* sql`INSERT INTO kb_article_translations
      (article_id, workspace_id, locale, title, slug, content, noindex, created_at, updated_at)
      VALUES (${article}, ${workspace}, ${locale}, ${title}, ${locale}, ${content}, FALSE, ${NOW}, ${NOW})`
  }
  yield* sql`INSERT INTO training_data
    (id, workspace_id, type, title, slug, content, is_processed, status, created_at, updated_at)
    VALUES (${item}, ${workspace}, 'text', 'Delays', 'delays', 'Refunds take five days.', TRUE, 'completed', ${NOW},
      ${NOW})`
  yield* sql`INSERT INTO customers
    (id, workspace_id, first_name, last_name, first_seen_at, last_seen_at, created_at, updated_at)
    VALUES (${customer}, ${workspace}, 'Zoé', 'Brûlé', ${NOW}, ${NOW}, ${NOW}, ${NOW})`
  yield* sql`INSERT INTO conversations (id, workspace_id, channel, customer_id, status, priority, tags, is_spam,
    spam_score, subject, created_at, updated_at)
    VALUES (${conversation}, ${workspace}, 'email', ${customer}, 'open', 'normal', '[]', FALSE, 0, 'Café', ${NOW},
      ${NOW})`
  yield* sql`INSERT INTO messages (id, workspace_id, conversation_id, sender_type, customer_id, content, sent_at,
    is_internal, addresses, created_at)
    VALUES (${message}, ${workspace}, ${conversation}, 'customer', ${customer}, 'Crème brûlée', ${NOW}, FALSE, '[]',
      ${NOW})`
})

const check = Effect.gen(function*() {
  const index = yield* PassageIndex
  const find = (words: ReadonlyArray<string>, locale: string | null) =>
    Effect.map(
      index.retrieve(workspace, { agentId: AgentId.make(item), words, locale, limit: 10 }),
      (ps) => ps.map((p) => p.citation.title).sort()
    )
  assert.deepStrictEqual(yield* find(["shipping"], "en"), ["Money back"])
  assert.deepStrictEqual(yield* find(["shipping"], "fr"), [])
  assert.deepStrictEqual(yield* find(["effectue"], "fr"), ["Remboursement"])
  assert.deepStrictEqual(yield* find(["refunds"], null), ["Delays"])
  assert.deepStrictEqual(yield* find(["refunding"], "en"), ["Delays", "Money back"])
  assert.deepStrictEqual(yield* find(["refunding"], "fr"), [])
  const listed = yield* (yield* ArticleRepo).list(workspace, { terms: ["effectue"] }, { limit: 10, offset: 0 })
  assert.deepStrictEqual(listed.items.map((a) => a.id), [article], "the article list folds diacritics too")
  const customers = yield* (yield* CustomerRepo).list(workspace, { terms: ["zoe", "brule"] }, { limit: 10, offset: 0 })
  assert.deepStrictEqual(customers.items.map((c) => c.id), [customer], "the customer list folds diacritics too")
  const conversations = yield* ConversationRepo
  for (const words of [["cafe"], ["creme", "brulee"]]) {
    const found = yield* conversations.list(workspace, { terms: words }, { limit: 10, offset: 0 })
    assert.deepStrictEqual(found.items.map((c) => c.id), [conversation], `subject and message: ${words.join(" ")}`)
  }
})

/** Migrates to just before 0031, writes content, runs the rest (0031 to 0033), then searches. */
const run = (url: () => string) =>
  Effect.gen(function*() {
    yield* before
    yield* seed
    yield* migrate
    yield* check.pipe(
      Effect.provide(Layer.mergeAll(
        SqlPassageIndexLive,
        Layer.mergeAll(SqlArticleRepoLive, SqlCustomerRepoLive, SqlConversationRepoLive).pipe(
          Layer.provide(Counters.layer)
        )
      ))
    )
  }).pipe(Effect.provide(Layer.suspend(() => clientLayer(url()))))

describe("migrations 0031 to 0033 on content written before them (D61)", () => {
  const dir = mkdtempSync(join(tmpdir(), "support-engine-0031-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it.effect("SQLite: existing passages enter the words and English indexes (training items both)", () =>
    run(() => `file:${join(dir, "support.db")}`))

  describe.skipIf(adminUrl === undefined)("PostgreSQL", () => {
    let database: Awaited<ReturnType<typeof createDatabase>> | undefined
    beforeAll(async () => {
      database = await createDatabase()
    })
    afterAll(async () => {
      await database?.drop()
    })

    it.effect("existing rows are indexed by the rebuilt expressions", () => run(() => database!.url))
  })
})
