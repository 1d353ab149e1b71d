/**
 * The embedded engine in one call (D3): core services on the storage a URL names, as a layer for Effect hosts
 * and as a Promise API for plain TypeScript hosts.
 */
import { EngineLive, type EngineService, TrainingWorker } from "@support-engine/core"
import { Config, type ConfigError, Layer } from "effect"
import { makeSupportEngine, type SupportEngine } from "./Facade.js"
import { StorageLive, type StoragePorts } from "./Storage.js"

export interface SupportEngineOptions {
  /** `file:./data/support.db` (default), `file::memory:`, or `postgres://…` (D41). */
  readonly databaseUrl?: string
  /**
   * Background work to run beside the engine for as long as it lives (for example the webhook dispatcher
   * from `@support-engine/webhooks`).
   */
  readonly background?: ReadonlyArray<Layer.Layer<never, never, EngineService | StoragePorts>>
}

export const DEFAULT_DATABASE_URL = "file:./data/support.db"

/** `SUPPORT_DATABASE_URL` (D41), default `file:./data/support.db`: read here once for the CLI and the server. */
export const DatabaseUrlConfig: Config.Config<string> = Config.string("SUPPORT_DATABASE_URL").pipe(
  Config.withDefault(DEFAULT_DATABASE_URL),
  Config.validate({ message: "must not be empty", validation: (url) => url.trim().length > 0 })
)

/** Core services over storage for `databaseUrl`, plus any background layers. */
/** Fails to build only when configuration (D41) is invalid. */
export const engineLayer = (
  options: SupportEngineOptions = {}
): Layer.Layer<EngineService | StoragePorts, ConfigError.ConfigError> => {
  const engine = EngineLive.pipe(Layer.provideMerge(StorageLive(options.databaseUrl ?? DEFAULT_DATABASE_URL)))
  // The training worker always runs with the engine (D31); hosts add more (the webhook dispatcher).
  const background = [TrainingWorker.layer(), ...(options.background ?? [])]
  return Layer.provideMerge(Layer.mergeAll(background[0]!, ...background.slice(1)), engine)
}

/**
 * The Promise facade (D3b). Call `dispose()` when done: it closes the database and stops background fibers.
 *
 * @example
 * const engine = createSupportEngine({ databaseUrl: "file:./data/support.db" })
 * const workspace = await engine.workspaces.create({ name: "Acme" })
 * const api = await engine.workspace(workspace.id)
 * await api.companies.create({ name: "Globex" })
 * await engine.dispose()
 */
export const createSupportEngine = (options: SupportEngineOptions = {}): SupportEngine =>
  makeSupportEngine(engineLayer(options))
