/**
 * `support-engine serve`: migrate, run the engine with its background work (the webhook dispatcher among it),
 * listen, bootstrap an empty database, and stop gracefully. Resources are acquired in one scope and released in
 * reverse: on SIGINT/SIGTERM the HTTP server stops accepting connections and waits for in-flight requests before
 * the engine (its dispatcher and workers, which give back their leases, then the database) is released.
 */
import { type ApiToken, CreateApiToken, CreateWorkspace, Tokens, Transactor, Workspaces } from "@support-engine/core"
import {
  EngineFromEnv,
  type LogFormat,
  LoggingFromEnv,
  MetricsListener,
  MetricsServerFromEnv,
  ServerLive,
  TelemetryFromEnv
} from "@support-engine/http"
import { Console, Context, Effect, Layer, Option, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { NetAddress } from "effect/net"
import { databaseUrl, describeDatabase } from "./CliConfig.js"
import { exportLine } from "./Output.js"

/** The name of the workspace made on an empty database. */
export const DEFAULT_WORKSPACE_NAME = "Default"

/**
 * On a database without workspaces, creates "Default" and a write token for it, in one transaction so that a
 * failure leaves the database empty and the next start tries again. `None` when there already is a workspace.
 */
export const bootstrap = Effect.gen(function*() {
  const workspaces = yield* Workspaces
  const tokens = yield* Tokens
  const tx = yield* Transactor
  return yield* tx.withTransaction(Effect.gen(function*() {
    // Several servers may start together on one empty database (docs/scaling.md): one of them creates it.
    const created = yield* workspaces.createFirst(new CreateWorkspace({ name: DEFAULT_WORKSPACE_NAME }))
    if (Option.isNone(created)) return Option.none()
    const workspace = created.value
    const issued = yield* tokens.create(
      new CreateApiToken({
        workspace_id: workspace.id,
        name: "Created by support-engine serve",
        abilities: ["external-api:write"],
        expires_at: null
      })
    )
    return Option.some({ workspace, token: issued.token, plain: issued.plain })
  }))
})

const baseUrl = (address: NetAddress.SocketAddress): string => {
  if (address._tag === "UnixPathAddress") return `http://unix:${address.path}`
  // A wildcard address listens everywhere; a browser on this machine reaches it as localhost.
  const host = NetAddress.isUnspecified(address.address) ? "localhost" : NetAddress.formatUrlHost(address.address)
  return `http://${host}:${address.port}`
}

const announce = (options: {
  readonly address: NetAddress.SocketAddress
  readonly metrics: Option.Option<NetAddress.SocketAddress>
  readonly databaseUrl: string
  readonly bootstrapped: Option.Option<{ readonly token: ApiToken; readonly plain: Redacted.Redacted<string> }>
}) => {
  const url = baseUrl(options.address)
  const lines = [
    `support-engine listening on ${url}`,
    `  API:      ${url}/v1`,
    `  Docs:     ${url}/docs (OpenAPI: ${url}/openapi.json)`,
    `  Health:   ${url}/health (ready: ${url}/ready)`,
    ...Option.match(options.metrics, {
      onNone: () => [],
      onSome: (address) => [`  Metrics:  ${baseUrl(address)}/metrics`]
    }),
    `  Data:     ${describeDatabase(options.databaseUrl)}`
  ]
  if (Option.isSome(options.bootstrapped)) {
    const { plain, token } = options.bootstrapped.value
    lines.push(
      "",
      `Created workspace "${DEFAULT_WORKSPACE_NAME}" (${token.workspace_id}) with a write token.`,
      "The token is shown this once; keep it now. It contains a |, so the line below quotes it for a shell:",
      "",
      `  ${exportLine(Redacted.value(plain))}`,
      "",
      `Try: curl -H "Authorization: Bearer $SUPPORT_TOKEN" ${url}/v1/companies`
    )
  } else {
    lines.push(
      "",
      "Tokens: support-engine token list/create --workspace <id> (in a clone: pnpm -s cli token ...); see docs/cli.md"
    )
  }
  lines.push("", "Press Ctrl+C to stop.")
  return Console.log(lines.join("\n"))
}

/**
 * The server until interrupted: `NodeRuntime.runMain` interrupts it on SIGINT/SIGTERM. The bootstrap runs once the
 * server listens, so that a server that cannot start (port taken) does not create a token nobody sees. Resources
 * are released in reverse: the HTTP server stops accepting and lets requests in flight finish (at most
 * `SUPPORT_SHUTDOWN_TIMEOUT_MS`), the metrics listener closes, the engine closes (its dispatcher and its training
 * and reply workers give back their leases, then the database closes), and the OTLP
 * exporters flush. Tracing is off unless `OTEL_EXPORTER_OTLP_ENDPOINT` is set (http's Telemetry.ts); logs go
 * through the logger of `SUPPORT_LOG_FORMAT`/`SUPPORT_LOG_LEVEL`, `logFormat` (`--log-format`) first.
 */
export const serveWith = (logFormat: Option.Option<LogFormat>) =>
  Effect.scoped(Effect.gen(function*() {
    const url = yield* databaseUrl
    // First built, last released: the exporters flush what the rest recorded while it stopped.
    const telemetry = yield* Layer.build(TelemetryFromEnv)
    return yield* Effect.gen(function*() {
      const engine = yield* Layer.build(EngineFromEnv)
      const metrics = yield* Layer.build(MetricsServerFromEnv).pipe(Effect.provide(engine))
      const server = yield* Layer.build(ServerLive).pipe(Effect.provide(engine))
      const bootstrapped = yield* Effect.provide(bootstrap, engine)
      yield* announce({
        address: Context.get(server, HttpServer.HttpServer).address,
        metrics: Context.get(metrics, MetricsListener).address,
        databaseUrl: url,
        bootstrapped
      })
      return yield* Effect.never
    }).pipe(Effect.provideContext(telemetry))
  })).pipe(Effect.provide(LoggingFromEnv(logFormat)))

/** `support-engine serve` with the log format of the environment. */
export const serve = serveWith(Option.none())
