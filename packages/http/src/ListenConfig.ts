/** Where the standalone server listens and how long it lets requests finish when it stops. */
import { Config, Duration } from "effect"
import { validated } from "./shared/HttpConfig.js"

/** How long a stopping server lets requests in flight finish when `SUPPORT_SHUTDOWN_TIMEOUT_MS` is unset. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000

/**
 * `SUPPORT_HOST` (default 127.0.0.1), `SUPPORT_PORT` (default 8080; 0 picks a free port), and
 * `SUPPORT_SHUTDOWN_TIMEOUT_MS` (default 10,000): once the server stops accepting connections, how long requests in
 * flight may take to finish before they are interrupted.
 */
export const listenConfig = Config.all({
  host: Config.String("SUPPORT_HOST").pipe(Config.withDefault("127.0.0.1")),
  port: validated(
    Config.Int("SUPPORT_PORT").pipe(Config.withDefault(8080)),
    "SUPPORT_PORT",
    "must be a port number (0 to 65535)",
    (n) => n >= 0 && n <= 65535
  ),
  gracefulShutdownTimeout: validated(
    Config.Int("SUPPORT_SHUTDOWN_TIMEOUT_MS").pipe(Config.withDefault(DEFAULT_SHUTDOWN_TIMEOUT_MS)),
    "SUPPORT_SHUTDOWN_TIMEOUT_MS",
    "must be a non-negative integer (milliseconds)",
    (n) => n >= 0
  ).pipe(Config.map(Duration.millis))
})
