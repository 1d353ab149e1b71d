/**
 * The whole embedded engine in one call (D3): core services on the storage a URL names, webhook subscriptions, and
 * the background work that makes in-process behaviour the same as the server's: the webhook dispatcher and the
 * training and reply workers run by default. This package sits on top (it depends on storage and webhooks, neither
 * depends on it), so no arrow points back up: storage cannot import the dispatcher, and the dispatcher needs no
 * storage.
 */
import { type EngineService, WebhookConfig, Webhooks, type WebhookSettings } from "@support-engine/core"
import { engineLayer, type StoragePorts } from "@support-engine/storage"
import { makeSupportEngine, type SupportEngine } from "@support-engine/storage/Facade"
import { Dispatcher, DnsHostResolver, WebhookTransport } from "@support-engine/webhooks"
import { type Config, Layer } from "effect"

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
  /** Webhook settings in code; anything left out takes its default. Without it, `SUPPORT_WEBHOOK_*` are read. */
  readonly webhooks?: Partial<WebhookSettings>
  /** More background work to run beside the engine for as long as it lives. */
  readonly background?: ReadonlyArray<Layer.Layer<never, never, EngineService | StoragePorts>>
}

/** What the engine's layer provides: every core service (webhook subscriptions included) and the storage ports. */
export type SupportEngineServices = EngineService | StoragePorts | Webhooks

/**
 * The engine as a layer for Effect hosts: `engineLayer` of storage, core's `Webhooks` with the system's resolver,
 * and unless turned off the dispatcher, the training worker and the reply worker. Closing it stops them: attempts in flight are
 * interrupted and their leases given back, so another process (or the next start) sends them.
 */
export const supportEngineLayer = (
  options: SupportEngineOptions = {}
): Layer.Layer<SupportEngineServices, Config.ConfigError> => {
  const config = options.webhooks === undefined ? WebhookConfig.fromEnv : WebhookConfig.layer(options.webhooks)
  const base = engineLayer({
    ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }),
    ...(options.trainingWorker === undefined ? {} : { trainingWorker: options.trainingWorker }),
    ...(options.replyWorker === undefined ? {} : { replyWorker: options.replyWorker }),
    ...(options.retention === undefined ? {} : { retention: options.retention }),
    ...(options.background === undefined ? {} : { background: options.background })
  })
  const support = Layer.merge(config, DnsHostResolver)
  const webhooks = Webhooks.layerWithoutDependencies.pipe(Layer.provide(support))
  // Built for its effect alone: the dispatcher runs for as long as the layer lives and provides nothing.
  const dispatcher = options.dispatcher === false ? Layer.empty : Layer.empty.pipe(
    Layer.provide(Dispatcher.layerWithoutDependencies),
    Layer.provide(WebhookTransport.Undici),
    Layer.provide(support)
  )
  return Layer.mergeAll(webhooks, dispatcher).pipe(Layer.provideMerge(base))
}

/**
 * The Promise API (D3b). Call `dispose()` when done: it stops the dispatcher (leases of attempts in flight are given
 * back), the training worker and the reply worker (their leases given back too), then closes the database.
 *
 * @example
 * const engine = createSupportEngine({ databaseUrl: "file:./data/support.db" })
 * const workspace = await engine.workspaces.create({ name: "Acme" })
 * const api = await engine.workspace(workspace.id)
 * await api.companies.create({ name: "Globex" })
 * await engine.dispose()
 */
export const createSupportEngine = (options: SupportEngineOptions = {}): SupportEngine =>
  makeSupportEngine(supportEngineLayer(options))
