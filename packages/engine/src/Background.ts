/**
 * The work an engine runs beside its services for as long as it lives: the training worker, the AI reply worker,
 * the retention pruner, the sweep that erases expired previous webhook secrets, and the webhook dispatcher. Each
 * fiber is started by building its layer and stopped by closing it; what a fiber holds (leases of training items,
 * reply jobs and delivery attempts) is given back when it stops, so another process, or the next start, resumes it.
 */
import {
  type DeliveryQueue,
  type EngineService,
  type HostResolver,
  type IdGenerator,
  PreviousSecretSweep,
  ReplyWorker,
  Retention,
  RetentionConfig,
  TrainingWorker,
  type WebhookConfig
} from "@support-engine/core"
import type { StoragePorts } from "@support-engine/storage"
import { Dispatcher, type WebhookTransport } from "@support-engine/webhooks"
import { type Config, type Duration, Layer } from "effect"

/** Which background fibers run. A fiber left off is expected to run in another process on the same database. */
export interface BackgroundOptions {
  readonly trainingWorker: boolean
  readonly replyWorker: boolean
  readonly retention: boolean
  readonly previousSecretSweep: boolean
  /** The dispatcher's transport, when the dispatcher runs here; undefined when it does not. */
  readonly dispatcher: Layer.Layer<WebhookTransport, never, WebhookConfig | HostResolver> | undefined
  /** How often the training and reply workers look for work another process queued; default one second. */
  readonly pollInterval: Duration.Input | undefined
  /** More background work, run beside the rest. */
  readonly extra: ReadonlyArray<Layer.Layer<never, never, EngineService | StoragePorts>>
}

/** What the background fibers need: the engine's services, the storage ports, and the webhook settings. */
export type BackgroundNeeds = EngineService | StoragePorts | WebhookConfig | HostResolver

/**
 * The pruner on the retention the environment sets (`SUPPORT_EVENT_RETENTION_DAYS`,
 * `SUPPORT_DELIVERY_RETENTION_DAYS`): at start and then hourly. Invalid settings stop the start, naming the variable.
 */
export const RetentionPruner: Layer.Layer<never, Config.ConfigError, EngineService | StoragePorts> = Retention.pruner
  .pipe(
    Layer.provide(Retention.layer),
    Layer.provide(RetentionConfig.fromEnv)
  )

/** Erases expired previous webhook secrets, one statement a minute; every engine runs it unless told not to. */
export const PreviousSecretSweeper: Layer.Layer<never, never, StoragePorts> = Layer.flatMap(
  PreviousSecretSweep.layer,
  () => Layer.empty
)

/** The dispatcher, built for its effect alone: it delivers for as long as the layer lives and provides nothing. */
export const DispatcherRunning: Layer.Layer<
  never,
  never,
  DeliveryQueue | IdGenerator | WebhookConfig | WebhookTransport
> = Layer.flatMap(Dispatcher.layerWithoutDependencies, () => Layer.empty)

/** The background fibers `options` asks for, as one layer. */
export const backgroundWork = (
  options: BackgroundOptions
): Layer.Layer<never, Config.ConfigError, BackgroundNeeds> => {
  const poll = options.pollInterval === undefined ? {} : { pollInterval: options.pollInterval }
  return Layer.mergeAll(
    Layer.empty,
    ...(options.previousSecretSweep ? [PreviousSecretSweeper] : []),
    ...(options.trainingWorker ? [TrainingWorker.layer(poll)] : []),
    ...(options.replyWorker ? [ReplyWorker.layer(poll)] : []),
    ...(options.retention ? [RetentionPruner] : []),
    ...(options.dispatcher === undefined ? [] : [DispatcherRunning.pipe(Layer.provide(options.dispatcher))]),
    ...options.extra
  )
}
