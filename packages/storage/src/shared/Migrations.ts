/**
 * One migration set for every dialect, registered statically. Ids only ever increase; a migration
 * that has run is never edited, a change is a new migration.
 */
import type { Effect } from "effect"
import { Migrator, type SqlClient, type SqlError } from "effect/sql"
import foundation from "../migrations/0001_foundation.js"
import customersCompanies from "../migrations/0002_customers_companies.js"
import agents from "../migrations/0003_agents.js"
import conversationsMessages from "../migrations/0004_conversations_messages.js"
import training from "../migrations/0005_training.js"
import knowledgeBase from "../migrations/0006_knowledge_base.js"
import webhooks from "../migrations/0007_webhooks.js"
import syncOrder from "../migrations/0013_sync_order.js"
import idempotencyKeys from "../migrations/0014_idempotency_keys.js"
import textSearch from "../migrations/0015_text_search.js"
import aiPassages from "../migrations/0016_ai_passages.js"
import agentAutoReply from "../migrations/0017_agent_auto_reply.js"
import oneSerialisation from "../migrations/0019_one_serialisation.js"
import webhookOperations from "../migrations/0023_webhook_operations.js"
import fairDelivery from "../migrations/0024_fair_delivery.js"
import replyLoop from "../migrations/0026_reply_loop.js"
import deferredFanOut from "../migrations/0027_deferred_fan_out.js"
import eventsAfter from "../migrations/0028_events_after.js"
import deliveryRequeues from "../migrations/0029_delivery_requeues.js"
import retention from "../migrations/0030_retention.js"
import searchLanguages from "../migrations/0031_search_languages.js"
import articleSearchFolded from "../migrations/0032_article_search_folded.js"
import customerConversationSearchFolded from "../migrations/0033_customer_conversation_search_folded.js"
import ascendingListIndexes from "../migrations/0034_ascending_list_indexes.js"

export const migrations = {
  "0001_foundation": foundation,
  "0002_customers_companies": customersCompanies,
  "0003_agents": agents,
  "0004_conversations_messages": conversationsMessages,
  "0005_training": training,
  "0006_knowledge_base": knowledgeBase,
  "0007_webhooks": webhooks,
  "0013_sync_order": syncOrder,
  "0014_idempotency_keys": idempotencyKeys,
  "0015_text_search": textSearch,
  "0016_ai_passages": aiPassages,
  "0017_agent_auto_reply": agentAutoReply,
  "0019_one_serialisation": oneSerialisation,
  "0023_webhook_operations": webhookOperations,
  "0024_fair_delivery": fairDelivery,
  "0026_reply_loop": replyLoop,
  "0027_deferred_fan_out": deferredFanOut,
  "0028_events_after": eventsAfter,
  "0029_delivery_requeues": deliveryRequeues,
  "0030_retention": retention,
  "0031_search_languages": searchLanguages,
  "0032_article_search_folded": articleSearchFolded,
  "0033_customer_conversation_search_folded": customerConversationSearchFolded,
  "0034_ascending_list_indexes": ascendingListIndexes
}

/** Runs every pending migration; returns what ran. */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError.SqlError,
  SqlClient.SqlClient
> = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: "support_engine_migrations" })
