/**
 * The engine's layer over the storage a URL names (D3): core services, the storage ports, the training worker and
 * the AI reply worker.
 * The Promise API over it (`createSupportEngine`, with webhook subscriptions and the dispatcher) is assembled in
 * `@support-engine/engine`, which may depend on the webhooks package; storage may not.
 */
import {
  EngineLive,
  type EngineService,
  PreviousSecretSweep,
  ReplyWorker,
  Retention,
  RetentionConfig,
  TrainingWorker
} from "@support-engine/core"
import { Config, Layer, Schema } from "effect"
import { AnswerModelLive } from "./ai/AnswerModelLive.js"
import { StorageLive, type StoragePorts } from "./Storage.js"

export interface EngineLayerOptions {
  /** `file:./data/support.db` (default), `file::memory:`, or `postgres://…` (D41). */
  readonly databaseUrl?: string
  /** Run the training worker in this process (D31). Default true; false for hosts that run it elsewhere. */
  readonly trainingWorker?: boolean
  /**
   * Run the AI reply worker in this process (D53): agents with `auto_reply` answer customer messages. Default
   * true; false for hosts that run it elsewhere (another process on the same PostgreSQL database).
   */
  readonly replyWorker?: boolean
  /**
   * Prune old events and finished deliveries in this process, at start and then hourly, as
   * `SUPPORT_EVENT_RETENTION_DAYS` and `SUPPORT_DELIVERY_RETENTION_DAYS` say. Default true; false for hosts that
   * leave it to another process on the same database.
   */
  readonly retention?: boolean
  /**
   * Background work to run beside the engine for as long as it lives (for example the webhook dispatcher
   * from `@support-engine/webhooks`).
   */
  readonly background?: ReadonlyArray<Layer.Layer<never, never, EngineService | StoragePorts>>
}

/** @deprecated the name before the Promise API moved to `@support-engine/engine`; use `EngineLayerOptions`. */
export type SupportEngineOptions = EngineLayerOptions

export const DEFAULT_DATABASE_URL = "file:./data/support.db"

/** `SUPPORT_DATABASE_URL` (D41), default `file:./data/support.db`: read here once for the CLI and the server. */
export const DatabaseUrlConfig: Config.Config<string> = Config.schema(
  Schema.String.check(Schema.makeFilter((url) => url.trim().length > 0, { message: "must not be empty" })),
  "SUPPORT_DATABASE_URL"
).pipe(Config.withDefault(DEFAULT_DATABASE_URL))

/** The pruner on the retention the environment sets; invalid settings stop the start, naming the variable. */
const RetentionPruner: Layer.Layer<never, Config.ConfigError, EngineService | StoragePorts> = Retention.pruner.pipe(
  Layer.provide(Retention.layer),
  Layer.provide(RetentionConfig.fromEnv)
)

/** Core services over storage for `databaseUrl`, plus any background layers. Fails to build only when configuration (D41) is invalid. */
export const engineLayer = (
  options: EngineLayerOptions = {}
): Layer.Layer<EngineService | StoragePorts, Config.ConfigError> => {
  // The model agents answer with (SUPPORT_AI_PROVIDER); a remote provider without its key stops the start.
  const engine = EngineLive.pipe(
    Layer.provideMerge(Layer.merge(StorageLive(options.databaseUrl ?? DEFAULT_DATABASE_URL), AnswerModelLive))
  )
  // The training and reply workers and the pruner run with the engine unless the host runs them elsewhere (D31,
  // D53); hosts add more (the dispatcher). Expired previous webhook secrets are erased by every engine (D46); the
  // sweep is one cheap statement a minute.
  const background = [
    Layer.flatMap(PreviousSecretSweep.layer, () => Layer.empty),
    ...(options.trainingWorker === false ? [] : [TrainingWorker.layer()]),
    ...(options.replyWorker === false ? [] : [ReplyWorker.layer()]),
    ...(options.retention === false ? [] : [RetentionPruner]),
    ...(options.background ?? [])
  ]
  return Layer.provideMerge(Layer.mergeAll(Layer.empty, ...background), engine)
}
