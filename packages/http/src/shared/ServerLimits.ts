/**
 * Connection limits of the standalone Node server: how many sockets it holds at once and how long a
 * client may take to send a request or keep an idle connection. Without them, idle sockets held open by one client
 * exhausted the process's file descriptors and `/health` stopped answering; with them an idle or slow socket is
 * closed (408) once its time is up, and sockets past the maximum are closed on arrival instead of taking
 * descriptors the database and webhook deliveries need.
 */
import { Config } from "effect"
import { createServer, type Server } from "node:http"
import { validated } from "./HttpConfig.js"

/** The limits of one server; every duration in milliseconds. */
export interface ServerLimitSettings {
  /** Sockets open at once; past it, new connections are closed as they arrive. */
  readonly maxConnections: number
  /** Time from a connection (or the end of the previous request on it) to the end of the request's headers. */
  readonly headersTimeoutMs: number
  /** Time to receive a whole request, headers and body; at least `headersTimeoutMs`. */
  readonly requestTimeoutMs: number
  /** How long a kept-alive connection may sit idle between requests. */
  readonly keepAliveTimeoutMs: number
  /** The largest request line plus headers, in bytes; larger is answered 431. */
  readonly maxHeaderBytes: number
}

/**
 * The defaults: Node's own header size (16 KiB) and keep-alive (5 s); a whole request within 30 s (Node waits 300 s),
 * its headers within 15 s (Node: 60 s), which is ample for a 1 MiB body on a slow link and short enough that an
 * attacker must keep sending to hold a socket; 10,000 sockets, under common descriptor limits once the database and
 * deliveries have theirs.
 */
export const DEFAULT_SERVER_LIMITS: ServerLimitSettings = {
  maxConnections: 10_000,
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16_384
}

const positive = (name: string, fallback: number) =>
  validated(Config.Int(name).pipe(Config.withDefault(fallback)), name, "must be a positive integer", (n) => n > 0)

/**
 * `SUPPORT_MAX_CONNECTIONS`, `SUPPORT_HEADERS_TIMEOUT_MS`, `SUPPORT_REQUEST_TIMEOUT_MS`,
 * `SUPPORT_KEEP_ALIVE_TIMEOUT_MS`, `SUPPORT_MAX_HEADER_BYTES` (docs/configuration.md).
 */
export const serverLimitsConfig: Config.Config<ServerLimitSettings> = validated(
  Config.all({
    maxConnections: positive("SUPPORT_MAX_CONNECTIONS", DEFAULT_SERVER_LIMITS.maxConnections),
    headersTimeoutMs: positive("SUPPORT_HEADERS_TIMEOUT_MS", DEFAULT_SERVER_LIMITS.headersTimeoutMs),
    requestTimeoutMs: positive("SUPPORT_REQUEST_TIMEOUT_MS", DEFAULT_SERVER_LIMITS.requestTimeoutMs),
    keepAliveTimeoutMs: positive("SUPPORT_KEEP_ALIVE_TIMEOUT_MS", DEFAULT_SERVER_LIMITS.keepAliveTimeoutMs),
    maxHeaderBytes: positive("SUPPORT_MAX_HEADER_BYTES", DEFAULT_SERVER_LIMITS.maxHeaderBytes)
  }),
  // Node refuses a request timeout shorter than the headers timeout; say so in our own words, naming both.
  "SUPPORT_REQUEST_TIMEOUT_MS",
  "must be at least SUPPORT_HEADERS_TIMEOUT_MS",
  (limits) => limits.requestTimeoutMs >= limits.headersTimeoutMs
)

/**
 * A node:http server with `limits` applied. Node checks the timeouts of open connections every
 * `connectionsCheckingInterval` (30 s by default, which would let a 15 s limit last up to 45 s): once a second here.
 */
export const limitedServer = (limits: ServerLimitSettings): Server => {
  const server = createServer({
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs)
  })
  server.maxConnections = limits.maxConnections
  return server
}
