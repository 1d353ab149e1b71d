/**
 * The configuration the CLI itself reads, through Effect `Config` only: the database URL. The rest is read
 * where it is used, once: `SUPPORT_HOST`/`SUPPORT_PORT` (`listenConfig`) and `SUPPORT_MAX_BODY_BYTES`
 * (`HttpConfig.fromEnv`) by the http package's `ServerLive`, `SUPPORT_WEBHOOK_*` by core's
 * `WebhookConfig.fromEnv`, `SUPPORT_DEFAULT_AGENT_MODEL` by core's `Agents`. docs/configuration.md lists them all.
 */
import { DatabaseUrlConfig } from "@support-engine/engine"
import { parseDatabaseUrl } from "@support-engine/storage"
import type { Config } from "effect"

/** `SUPPORT_DATABASE_URL` (default `file:./data/support.db`), as the engine package reads it. */
export const databaseUrl: Config.Config<string> = DatabaseUrlConfig

/**
 * Where the data of `url` lives, for people: the absolute SQLite file, "memory", or the PostgreSQL URL without
 * its password (`serve` prints it on start).
 */
export const describeDatabase = (url: string): string => {
  const parsed = parseDatabaseUrl(url)
  if (parsed._tag === "Sqlite") {
    return parsed.filename === ":memory:"
      ? "in memory (SQLite; gone when the process exits)"
      : `${parsed.filename} (SQLite)`
  }
  try {
    const location = new URL(parsed.url)
    if (location.password !== "") location.password = "***"
    return `${location.toString()} (PostgreSQL)`
  } catch {
    return "PostgreSQL (unparsable URL)"
  }
}
