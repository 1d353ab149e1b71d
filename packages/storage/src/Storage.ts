/**
 * Every repository port on one SQL client, migrated on start. This is the layer a host provides under the
 * core services: `StorageLive(url)` for a URL, or `layerFromClient` over a client it already has.
 */
import {
  type AgentRepo,
  type ApiTokenRepo,
  type ArticleRepo,
  type CompanyRepo,
  type ConversationRepo,
  type CustomerRepo,
  type DeliveryBacklog,
  type DeliveryQueue,
  type IdempotencyStore,
  IdGenerator,
  type MessageRepo,
  type Outbox,
  type PassageIndex,
  type Readiness,
  type ReplyJobs,
  type RetentionStore,
  type RowLocks,
  type SecretCipher,
  type TrainingRepo,
  type Transactor,
  type UserRepo,
  type WebhookOps,
  type WebhookRepo,
  type WorkspaceRepo
} from "@support-engine/core"
import { Clock, type Config, Effect, Layer, Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import type { Socket } from "node:net"
import { SqlAgentRepoLive } from "./agents/SqlAgentRepo.js"
import { SqlPassageIndexLive } from "./ai/SqlPassageIndex.js"
import { SqlReplyJobsLive } from "./ai/SqlReplyJobs.js"
import { SqlCompanyRepoLive } from "./companies/SqlCompanyRepo.js"
import { SqlConversationRepoLive } from "./conversations/SqlConversationRepo.js"
import { SqlCustomerRepoLive } from "./customers/SqlCustomerRepo.js"
import { SqlOutboxLive } from "./events/SqlOutbox.js"
import { SqlIdempotencyStoreLive } from "./idempotency/SqlIdempotencyStore.js"
import { SqlArticleRepoLive } from "./knowledge-base/SqlArticleRepo.js"
import { SqlRetentionStoreLive } from "./retention/SqlRetentionStore.js"
import { Counters } from "./shared/Counters.js"
import { type DatabaseUrl, parseDatabaseUrl, sqliteLayer } from "./shared/Database.js"
import { migrate } from "./shared/Migrations.js"
import { keepWriterTemporariesInMemory } from "./shared/SqliteClient.js"
import { SqlReadinessLive } from "./shared/SqlReadiness.js"
import { SqlRowLocksLive } from "./shared/SqlRowLocks.js"
import { SqlTransactorLive } from "./shared/SqlTransactor.js"
import { SqlTrainingRepoLive } from "./training/SqlTrainingRepo.js"
import { DeliverySignal } from "./webhooks/DeliverySignal.js"
import { secretCipherLayer, secretsAtStart } from "./webhooks/SecretsAtRest.js"
import { SqlDeliveryBacklogLive } from "./webhooks/SqlDeliveryBacklog.js"
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
  | SecretCipher
  | ReplyJobs
  | RetentionStore
  | Readiness
  | DeliveryBacklog

/**
 * The repositories over whatever `SqlClient` is in context, drawing the ids they make (deliveries) from `ids`: the
 * test kit passes `IdGenerator.Deterministic` so a seeded run makes the same delivery ids every time.
 */
export const repositoriesWith = (
  ids: Layer.Layer<IdGenerator>
): Layer.Layer<Exclude<StoragePorts, SecretCipher>, never, SqlClient.SqlClient | SecretCipher> =>
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
    SqlReplyJobsLive,
    SqlRetentionStoreLive,
    SqlReadinessLive,
    SqlDeliveryBacklogLive
  ).pipe(
    // One DeliverySignal per storage: the queue's fan-out wakes the dispatcher reading this DeliveryQueue.
    // IdGenerator.layer is the layer EngineLive uses, so one build shares one generator (layers are memoized).
    Layer.provide(Layer.mergeAll(Counters.layer, DeliverySignal.layer, ids))
  )

/** The repositories over whatever `SqlClient` and `SecretCipher` are in context. */
export const Repositories: Layer.Layer<
  Exclude<StoragePorts, SecretCipher>,
  never,
  SqlClient.SqlClient | SecretCipher
> = repositoriesWith(IdGenerator.layer)

/**
 * Runs pending migrations when the layer is built; then, on SQLite, the writing connection keeps statement journals
 * in memory (SqliteClient.ts, `keepWriterTemporariesInMemory`).
 */
export const Migrated: Layer.Layer<never, never, SqlClient.SqlClient> = Layer.effectDiscard(
  migrate.pipe(Effect.withSpan("Storage.migrate"), Effect.andThen(keepWriterTemporariesInMemory))
).pipe(Layer.orDie)

/** How a client connects, beyond its URL. */
export interface ClientOptions {
  /**
   * PostgreSQL only: makes each connection's socket (`@effect/sql-pg`'s `stream` option), unconnected; the client
   * connects it. For a test harness that watches the traffic (the simulator's PgTraffic.ts); ignored on SQLite.
   */
  readonly pgSocket?: () => Socket
}

/**
 * The SQL client a database URL names. The PostgreSQL client is imported only for a PostgreSQL URL, so an
 * engine on SQLite never loads it (docs/performance.md, start-up: loading the PostgreSQL driver cost every start).
 *
 * The PostgreSQL client keeps the real clock: its connect and idle timeouts measure the network, so a test that
 * moves its TestClock must not expire the connection being opened (the client reads the clock it was built with).
 */
export const clientLayer = (url: string, options: ClientOptions = {}): Layer.Layer<SqlClient.SqlClient> => {
  const parsed = parseDatabaseUrl(url)
  const pgSocket = options.pgSocket
  return parsed._tag === "Sqlite"
    ? sqliteLayer(parsed.filename)
    : Layer.unwrap(
      Effect.map(
        Effect.promise(() => import("@effect/sql-pg")),
        ({ PgClient }) =>
          PgClient.layer({ url: Redacted.make(parsed.url), ...(pgSocket === undefined ? {} : { stream: pgSocket }) })
            .pipe(Layer.provide(Layer.succeed(Clock.Clock, Clock.Clock.defaultValue())))
      )
    ).pipe(Layer.orDie)
}

/**
 * Every port on the client in context: migrations, then the start of secrets at rest (SecretsAtRest.ts: the key
 * checked against what is stored, plain text encrypted), then the repositories. `database` says where the key
 * comes from when `SUPPORT_SECRET_KEY` is not set; a host's client (undefined) needs it set.
 */
const storageOnClient = (
  database: DatabaseUrl | undefined,
  ids: Layer.Layer<IdGenerator>
): Layer.Layer<StoragePorts | SqlClient.SqlClient, Config.ConfigError, SqlClient.SqlClient> =>
  Layer.provideMerge(repositoriesWith(ids), Layer.effectDiscard(secretsAtStart).pipe(Layer.provide(Migrated))).pipe(
    Layer.provideMerge(secretCipherLayer(database)),
    Layer.provideMerge(Layer.effectContext(Effect.context<SqlClient.SqlClient>()))
  )

/**
 * Repositories on an existing client, migrated first. Webhook secrets are encrypted with `SUPPORT_SECRET_KEY`,
 * which must then be set (a `ConfigError` otherwise).
 */
export const layerFromClient: Layer.Layer<
  StoragePorts | SqlClient.SqlClient,
  Config.ConfigError,
  SqlClient.SqlClient
> = storageOnClient(undefined, IdGenerator.layer)

/**
 * Storage for a database URL: client, migrations, repositories. Fails to build with a `ConfigError` when webhook
 * secrets have no usable key (SecretsAtRest.ts).
 */
export const StorageLive = (url: string): Layer.Layer<StoragePorts | SqlClient.SqlClient, Config.ConfigError> =>
  storageOnClient(parseDatabaseUrl(url), IdGenerator.layer).pipe(Layer.provide(clientLayer(url)))

/** `StorageLive` whose repositories draw ids from `ids` (for deterministic tests and simulations), on a client made with `client`. */
export const StorageWithIds = (
  url: string,
  ids: Layer.Layer<IdGenerator>,
  client: ClientOptions = {}
): Layer.Layer<StoragePorts | SqlClient.SqlClient, Config.ConfigError> =>
  storageOnClient(parseDatabaseUrl(url), ids).pipe(Layer.provide(clientLayer(url, client)))
