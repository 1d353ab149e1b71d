/** The engines the CLI runs: core services over the storage `SUPPORT_DATABASE_URL` names (D41). */
import { EngineLive, type EngineService } from "@support-engine/core"
import { engineLayer, StorageLive, type StoragePorts } from "@support-engine/storage"
import { type Config, Effect, Layer } from "effect"
import { databaseUrl } from "./CliConfig.js"

/**
 * Core services on the configured database, migrated when built, without background work: a provisioning command
 * lives a second, and a training worker started in it could claim an item only to be stopped mid-way, leaving the
 * item leased until the lease expires.
 */
export const ProvisioningEngine: Layer.Layer<EngineService | StoragePorts, Config.ConfigError> = Layer.unwrap(
  Effect.map(databaseUrl, (url) => EngineLive.pipe(Layer.provideMerge(StorageLive(url))))
)

/** The engine `serve` runs (with the training worker, D31, and the AI reply worker, D53), on the configured database. */
export const ServerEngine: Layer.Layer<EngineService | StoragePorts, Config.ConfigError> = Layer.unwrap(
  Effect.map(databaseUrl, (url) => engineLayer({ databaseUrl: url }))
)
