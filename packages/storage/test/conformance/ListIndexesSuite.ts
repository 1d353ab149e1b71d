import { assert, describe, it } from "@effect/vitest"
import {
  AgentRepo,
  ArticleId,
  ArticleRepo,
  CompanyId,
  CompanyRepo,
  ConversationId,
  ConversationRepo,
  CustomerId,
  CustomerRepo,
  MessageRepo,
  Outbox,
  TrainingRepo,
  WebhookId,
  WebhookRepo
} from "@support-engine/core"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { StoragePorts } from "../../src/Storage.js"
import { type Adapter, makeWorkspace, provideEngine, statementsOf } from "./Harness.js"

const ID = "00000000-0000-4000-8000-000000000001"
const PAGE = { limit: 15, offset: 30 }

/**
 * D18 (lists newest first, read by index) with issue 32's write costs: the indexes lists read newest first are kept
 * ascending (migration 0034), and every newest-first list still reads its page from an index, walked backwards,
 * without sorting its rows.
 */
export const listIndexesSuite = (adapter: Adapter) =>
  describe(`List indexes (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("no index of the schema keeps a column in descending order", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const indexes = yield* sql.onDialectOrElse({
          pg: () =>
            sql<{ readonly name: string; readonly definition: string }>`
              SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = current_schema()`,
          orElse: () =>
            sql<{ readonly name: string; readonly definition: string }>`
              SELECT name, sql AS definition FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL`
        })
        const names = indexes.map((i) => i.name)
        // The lists' indexes are there, under their names.
        for (const name of ["events_workspace_type_order", "conversations_customer_id", "messages_conversation"]) {
          assert.include(names, name)
        }
        assert.deepStrictEqual(indexes.filter((i) => /\bDESC\b/i.test(i.definition)).map((i) => i.name), [])
      }).pipe(provide))

    // SQLite plans a statement the same whatever the tables hold (no statistics are gathered here); PostgreSQL plans
    // by its statistics, and on a test database's few rows a scan and a sort are its right choice.
    if (adapter.name === "postgres") return
    it.effect("each newest-first list reads its page through an index, without sorting (SQLite's plans)", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { workspace } = yield* makeWorkspace()
        const ws = workspace.id
        const at = { at: workspace.created_at, id: ID }
        const lists: Record<string, Effect.Effect<unknown, unknown, StoragePorts>> = {
          customers: Effect.flatMap(CustomerRepo, (r) => r.list(ws, {}, PAGE)),
          customersOfCompany: Effect.flatMap(CustomerRepo, (r) => r.list(ws, { company_id: CompanyId.make(ID) }, PAGE)),
          customersAfter: Effect.flatMap(CustomerRepo, (r) => r.list(ws, {}, { ...PAGE, offset: 0, after: at })),
          companies: Effect.flatMap(CompanyRepo, (r) => r.list(ws, PAGE)),
          agents: Effect.flatMap(AgentRepo, (r) => r.list(ws, {}, PAGE)),
          activeAgents: Effect.flatMap(AgentRepo, (r) => r.list(ws, { is_active: true }, PAGE)),
          conversations: Effect.flatMap(ConversationRepo, (r) => r.list(ws, {}, PAGE)),
          openConversations: Effect.flatMap(ConversationRepo, (r) => r.list(ws, { status: "open" }, PAGE)),
          conversationsOfCustomer: Effect.flatMap(
            ConversationRepo,
            (r) => r.list(ws, { customer_id: CustomerId.make(ID) }, PAGE)
          ),
          messagesOfConversation: Effect.flatMap(
            MessageRepo,
            (r) => r.list(ws, { conversation_id: ConversationId.make(ID) }, PAGE)
          ),
          events: Effect.flatMap(Outbox, (r) => r.list(ws, {}, PAGE)),
          eventsOfType: Effect.flatMap(Outbox, (r) => r.list(ws, { event: "conversation.created" }, PAGE)),
          trainingData: Effect.flatMap(TrainingRepo, (r) => r.list(ws, { status: "processing" }, PAGE)),
          articles: Effect.flatMap(ArticleRepo, (r) => r.list(ws, { status: "published" }, PAGE)),
          revisions: Effect.flatMap(ArticleRepo, (r) => r.listRevisions(ws, ArticleId.make(ID), PAGE)),
          webhooks: Effect.flatMap(WebhookRepo, (r) => r.list(ws, PAGE)),
          deliveries: Effect.flatMap(WebhookRepo, (r) => r.listDeliveries(ws, WebhookId.make(ID), {}, PAGE)),
          failedDeliveries: Effect.flatMap(
            WebhookRepo,
            (r) => r.listDeliveries(ws, WebhookId.make(ID), { status: "failed" }, PAGE)
          )
        }
        for (const [list, read] of Object.entries(lists)) {
          const pages = (yield* statementsOf(read)).statements.filter((text) => /ORDER BY .* DESC/s.test(text))
          assert.lengthOf(pages, 1, `${list}: one newest-first statement`)
          // The plan does not depend on the values bound; every placeholder gets NULL.
          const text = pages[0]!
          const params = Array.from(text.matchAll(/\?/g), () => null)
          const plan = (yield* sql.unsafe<{ readonly detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params))
            .map((row) => row.detail)
          assert.isTrue(plan.some((step) => /USING (COVERING )?INDEX/.test(step)), `${list}: ${plan.join("; ")}`)
          assert.isFalse(plan.some((step) => /TEMP B-TREE/.test(step)), `${list}: ${plan.join("; ")}`)
        }
      }).pipe(provide))
  })
