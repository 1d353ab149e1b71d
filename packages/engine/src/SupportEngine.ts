/**
 * The engine assembled in one layer: core's services over the storage a database URL names, the model agents answer
 * with (AnswerModelLive.ts), core's webhook subscriptions with the system's resolver, and the background work
 * (Background.ts). Every host builds the engine here: the Promise API, the standalone server, the CLI and the test
 * kit. This package sits on top of storage and webhooks (neither depends on it), so the dispatcher and storage meet
 * here and nowhere below.
 */
import {
  type AnswerModel,
  type EngineService,
  EngineServices,
  type HostResolver,
  IdGenerator,
  TrainingProcessor,
  WebhookConfig,
  Webhooks,
  type WebhookSettings
} from "@support-engine/core"
import { type StoragePorts, StorageWithIds } from "@support-engine/storage"
import { DnsHostResolver, WebhookTransport } from "@support-engine/webhooks"
import { type Config, type Duration, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { AnswerModelLive } from "./ai/AnswerModelLive.js"
import { backgroundWork } from "./Background.js"
import { DEFAULT_DATABASE_URL } from "./DatabaseUrl.js"

export interface SupportEngineOptions {
  /** `file:./data/support.db` (default), `file::memory:`, or `postgres://…`. */
  readonly databaseUrl?: string
  /**
   * Run the webhook dispatcher in this process. Default true; false for hosts that run it elsewhere (another
   * process on the same database, such as `support-engine serve`).
   */
  readonly dispatcher?: boolean
  /** Run the training worker in this process. Default true; false for hosts that run it elsewhere. */
  readonly trainingWorker?: boolean
  /** Run the AI reply worker in this process (agents with `auto_reply` answer customers). Default true. */
  readonly replyWorker?: boolean
  /**
   * Prune old events and finished deliveries in this process, at start and then hourly
   * (`SUPPORT_EVENT_RETENTION_DAYS`, `SUPPORT_DELIVERY_RETENTION_DAYS`). Default true; false for hosts that leave it
   * to another process on the same database.
   */
  readonly retention?: boolean
  /**
   * Run background work at all. Default true; false builds the services alone, with no fiber running beside them
   * (no dispatcher, workers, pruner or secret sweep, whatever the options above say): for a command that lives a
   * second, where a worker could claim an item only to be stopped mid-way and leave it leased.
   */
  readonly backgroundWork?: boolean
  /** Webhook settings in code; anything left out takes its default. Without it, `SUPPORT_WEBHOOK_*` are read. */
  readonly webhooks?: Partial<WebhookSettings>
  /** More background work to run beside the engine for as long as it lives. */
  readonly background?: ReadonlyArray<Layer.Layer<never, never, EngineService | StoragePorts>>
}

/** Parts of the engine a test kit or a host swaps for its own; each left out takes the engine's default. */
export interface EngineParts {
  /** The storage, in place of the one `databaseUrl` names (the test kit's draws deterministic ids). */
  readonly storage?: Layer.Layer<StoragePorts | SqlClient.SqlClient, Config.ConfigError>
  /** The id generator of the services; default `IdGenerator.layer`. Pass the storage's own when swapping both. */
  readonly ids?: Layer.Layer<IdGenerator>
  /** The host's training processor; default completes every item at once. */
  readonly processor?: Layer.Layer<TrainingProcessor>
  /** The model agents answer with; default the one `SUPPORT_AI_PROVIDER` names. */
  readonly answerModel?: Layer.Layer<AnswerModel, Config.ConfigError>
  /** Services put between storage and core, over the ones storage provides (a decorated port, a model). */
  readonly overrides?: Layer.Layer<never, never, StoragePorts>
  /** How the dispatcher sends an attempt; default undici over the network. */
  readonly transport?: Layer.Layer<WebhookTransport, never, WebhookConfig | HostResolver>
  /** How webhook hosts resolve; default the system's resolver. */
  readonly hostResolver?: Layer.Layer<HostResolver>
  /** How often the training and reply workers look for work another process queued; default one second. */
  readonly pollInterval?: Duration.Input
  /** Erase expired previous webhook secrets in this process (a sweep a minute). Default true. */
  readonly previousSecretSweep?: boolean
}

/**
 * What the engine's layer provides: every core service (webhook subscriptions included), the storage ports, the SQL
 * client they run on, and the webhook settings and resolver in use.
 */
export type SupportEngineServices =
  | EngineService
  | StoragePorts
  | Webhooks
  | SqlClient.SqlClient
  | WebhookConfig
  | HostResolver

/**
 * The engine as a layer for Effect hosts: core's services on migrated storage, webhook subscriptions, and unless
 * turned off the dispatcher, the training and reply workers, the retention pruner and the previous-secret sweep.
 * Closing it stops them: attempts in flight are interrupted and their leases given back, so another process (or the
 * next start) sends them. It fails to build only when configuration is invalid.
 */
export const supportEngineLayer = (
  options: SupportEngineOptions = {},
  parts: EngineParts = {}
): Layer.Layer<SupportEngineServices, Config.ConfigError> => {
  const ids = parts.ids ?? IdGenerator.layer
  const storage = parts.storage ?? StorageWithIds(options.databaseUrl ?? DEFAULT_DATABASE_URL, ids)
  const services = EngineServices.pipe(
    Layer.provideMerge(Layer.merge(parts.processor ?? TrainingProcessor.layer, ids)),
    Layer.provideMerge(parts.overrides ?? Layer.empty),
    Layer.provideMerge(Layer.merge(storage, parts.answerModel ?? AnswerModelLive))
  )
  const settings = Layer.merge(
    options.webhooks === undefined ? WebhookConfig.fromEnv : WebhookConfig.layer(options.webhooks),
    parts.hostResolver ?? DnsHostResolver
  )
  const running = options.backgroundWork !== false
  const background = backgroundWork({
    trainingWorker: running && options.trainingWorker !== false,
    replyWorker: running && options.replyWorker !== false,
    retention: running && options.retention !== false,
    previousSecretSweep: running && parts.previousSecretSweep !== false,
    dispatcher: running && options.dispatcher !== false ? parts.transport ?? WebhookTransport.HttpClient : undefined,
    pollInterval: parts.pollInterval,
    extra: running ? options.background ?? [] : []
  })
  return Layer.merge(Webhooks.layerWithoutDependencies, background).pipe(
    Layer.provideMerge(settings),
    Layer.provideMerge(services)
  )
}
