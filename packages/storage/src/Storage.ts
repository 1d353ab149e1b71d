/**
 * Every repository port on one SQL client, migrated on start. This is the layer a host provides under the
 * core services: `StorageLive(url)` for a URL, or `layerFromClient` over a client it already has.
 */
import type { SqlClient } from "@effect/sql"
import {
  type AgentRepo,
  type ApiTokenRepo,
  type ArticleRepo,
  type CompanyRepo,
  type ConversationRepo,
  type CustomerRepo,
  type DeliveryQueue,
  type IdempotencyStore,
  IdGenerator,
  type MessageRepo,
  type Outbox,
  type PassageIndex,
  type ReplyJobs,
  type RowLocks,
  type TrainingRepo,
  type Transactor,
  type UserRepo,
  type WebhookOps,
  type WebhookRepo,
  type WorkspaceRepo
} from "@support-engine/core"
import { Effect, Layer, Redacted } from "effect"
import { SqlAgentRepoLive } from "./agents/SqlAgentRepo.js"
import { SqlPassageIndexLive } from "./ai/SqlPassageIndex.js"
import { SqlReplyJobsLive } from "./ai/SqlReplyJobs.js"
import { SqlCompanyRepoLive } from "./companies/SqlCompanyRepo.js"
import { SqlConversationRepoLive } from "./conversations/SqlConversationRepo.js"
import { SqlCustomerRepoLive } from "./customers/SqlCustomerRepo.js"
import { SqlOutboxLive } from "./events/SqlOutbox.js"
import { SqlIdempotencyStoreLive } from "./idempotency/SqlIdempotencyStore.js"
import { SqlArticleRepoLive } from "./knowledge-base/SqlArticleRepo.js"
import { Counters } from "./shared/Counters.js"
import { parseDatabaseUrl, sqliteLayer } from "./shared/Database.js"
import { migrate } from "./shared/Migrations.js"
import { SqlRowLocksLive } from "./shared/SqlRowLocks.js"
import { SqlTransactorLive } from "./shared/SqlTransactor.js"
import { SqlTrainingRepoLive } from "./training/SqlTrainingRepo.js"
import { DeliverySignal } from "./webhooks/DeliverySignal.js"
import { SqlDeliveryQueueLive } from "./webhooks/SqlDeliveryQueue.js"
import { SqlWebhookOpsLive } from "./webhooks/SqlWebhookOps.js"
import { SqlWebhookRepoLive } from "./webhooks/SqlWebhookRepo.js"
import { SqlApiTokenRepoLive, SqlUserRepoLive, SqlWorkspaceRepoLive } from "./workspaces/SqlWorkspaceRepo.js"

/** Every port `storage` implements. */
export type StoragePorts =
  | Transactor
  | Outbox
  | WorkspaceRepo
  | UserRepo
  | ApiTokenRepo
  | CompanyRepo
  | CustomerRepo
  | AgentRepo
  | ConversationRepo
  | MessageRepo
  | TrainingRepo
  | ArticleRepo
  | WebhookRepo
  | WebhookOps
  | DeliveryQueue
  | RowLocks
  | IdempotencyStore
  | PassageIndex
  | ReplyJobs

/**
 * The repositories over whatever `SqlClient` is in context, drawing the ids they make (deliveries) from `ids`: the
 * test kit passes `IdGenerator.Deterministic` so a seeded run makes the same delivery ids every time.
 */
export const repositoriesWith = (
  ids: Layer.Layer<IdGenerator>
): Layer.Layer<StoragePorts, never, SqlClient.SqlClient> =>
  Layer.mergeAll(
    SqlTransactorLive,
    SqlOutboxLive,
    SqlWorkspaceRepoLive,
    SqlUserRepoLive,
    SqlApiTokenRepoLive,
    SqlCompanyRepoLive,
    SqlCustomerRepoLive,
    SqlAgentRepoLive,
    SqlConversationRepoLive,
    SqlTrainingRepoLive,
    SqlArticleRepoLive,
    SqlWebhookRepoLive,
    SqlWebhookOpsLive,
    SqlDeliveryQueueLive.pipe(Layer.provide(SqlOutboxLive)),
    SqlRowLocksLive,
    SqlIdempotencyStoreLive,
    SqlPassageIndexLive,
    SqlReplyJobsLive
  ).pipe(
    // One DeliverySignal per storage: the queue's fan-out wakes the dispatcher reading this DeliveryQueue.
    // IdGenerator.Default is the layer EngineLive uses, so one build shares one generator (layers are memoized).
    Layer.provide(Layer.mergeAll(Counters.Default, DeliverySignal.Default, ids))
  )

/** The repositories over whatever `SqlClient` is in context. */
export const Repositories: Layer.Layer<StoragePorts, never, SqlClient.SqlClient> = repositoriesWith(IdGenerator.Default)

/** Runs pending migrations when the layer is built. */
export const Migrated: Layer.Layer<never, never, SqlClient.SqlClient> = Layer.effectDiscard(
  migrate.pipe(Effect.withSpan("Storage.migrate"))
).pipe(Layer.orDie)

/**
 * The SQL client a database URL names (D41). The PostgreSQL client is imported only for a PostgreSQL URL: `pg`
 * probes for Cloudflare's runtime when it is loaded by reading the global `Response`, which makes Node load its own
 * copy of undici (fetch). That was about 30 ms of every start on SQLite (docs/performance.md, item 17).
 */
export const clientLayer = (url: string): Layer.Layer<SqlClient.SqlClient> => {
  const parsed = parseDatabaseUrl(url)
  return parsed._tag === "Sqlite"
    ? sqliteLayer(parsed.filename)
    : Layer.unwrapEffect(
      Effect.map(
        Effect.promise(() => import("@effect/sql-pg")),
        ({ PgClient }) => PgClient.layer({ url: Redacted.make(parsed.url) })
      )
    ).pipe(Layer.orDie)
}

/** Repositories on an existing client, migrated first. */
export const layerFromClient: Layer.Layer<StoragePorts | SqlClient.SqlClient, never, SqlClient.SqlClient> = Layer
  .provideMerge(Repositories, Migrated).pipe(
    Layer.provideMerge(Layer.effectContext(Effect.context<SqlClient.SqlClient>()))
  )

/** Storage for a database URL: client, migrations, repositories. */
export const StorageLive = (url: string): Layer.Layer<StoragePorts | SqlClient.SqlClient> =>
  layerFromClient.pipe(Layer.provide(clientLayer(url)))

/** `StorageLive` whose repositories draw ids from `ids` (for deterministic tests and simulations). */
export const StorageWithIds = (
  url: string,
  ids: Layer.Layer<IdGenerator>
): Layer.Layer<StoragePorts | SqlClient.SqlClient> =>
  Layer.provideMerge(repositoriesWith(ids), Migrated).pipe(
    Layer.provideMerge(Layer.effectContext(Effect.context<SqlClient.SqlClient>())),
    Layer.provide(clientLayer(url))
  )
