/**
 * The engine the CLI's commands run on: the engine package's layer on `SUPPORT_DATABASE_URL`. `serve` runs the
 * same layer with its background work (http's `EngineFromEnv`).
 */
import { supportEngineLayer, type SupportEngineServices } from "@support-engine/engine"
import { type Config, Effect, Layer } from "effect"
import { databaseUrl } from "./CliConfig.js"

/**
 * The engine's services on the configured database, migrated when built, with no background work: a provisioning
 * command lives a second, and a worker started in it could claim an item only to be stopped mid-way, leaving the
 * item leased until the lease expires.
 */
export const ProvisioningEngine: Layer.Layer<SupportEngineServices, Config.ConfigError> = Layer.unwrap(
  Effect.map(databaseUrl, (url) => supportEngineLayer({ databaseUrl: url, backgroundWork: false }))
)
