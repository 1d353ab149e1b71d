/**
 * A real server on a loopback port over the real engine (SQLite in a temporary file), the typed client for
 * success paths and `raw` (plain `fetch`) for everything a typed client cannot send.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { afterAll } from "@effect/vitest"
import {
  type Ability,
  CreateApiToken,
  CreateUser,
  CreateWorkspace,
  DeliveryQueue,
  HostResolver,
  Principal,
  Tokens,
  type TrainingDataId,
  Users,
  type Workspace,
  Workspaces
} from "@support-engine/core"
import { supportEngineLayer } from "@support-engine/engine"
import { ConfigProvider, Effect, Layer, type LogLevel, Redacted, References, Schedule } from "effect"
import { FetchHttpClient, HttpServer } from "effect/http"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Client, makeClient } from "../src/Client.js"
import { type ApiServices, HttpLive } from "../src/HttpApiLive.js"
import { HttpConfig } from "../src/shared/HttpConfig.js"
import { RateLimitConfig, type RateLimitSettings } from "../src/shared/RateLimits.js"
import { StandaloneLive } from "../src/StandaloneServer.js"

const dir = mkdtempSync(join(tmpdir(), "support-engine-http-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

export type TestServer = Layer.Success<ReturnType<typeof serverLayer>>

/**
 * The engine as hosts compose it (`supportEngineLayer`) on `url`, with the webhook policy's defaults (https, public
 * addresses only) over `FakeResolver`, and no dispatcher: nothing here receives webhooks.
 */
export const engineOnUrl = (url: string) =>
  supportEngineLayer({ databaseUrl: url, dispatcher: false, webhooks: {} }, { hostResolver: FakeResolver }).pipe(
    Layer.orDie
  )

/** The engine on the SQLite file `name` in a temporary directory. */
export const engineLayer = (name: string) => engineOnUrl(databaseUrl(name))

/** The URL of the test database `name`. */
export const databaseUrl = (name: string): string => `file:${join(dir, `${name}.db`)}`

/**
 * Name resolution for the webhook URL policy without DNS: `localhost` is loopback, every other name a public
 * address (D36, D47).
 */
export const FakeResolver = Layer.succeed(HostResolver, {
  resolve: (hostname) =>
    Effect.succeed(
      hostname === "localhost" ? [{ address: "127.0.0.1", family: 4 }] : [{ address: "93.184.215.14", family: 4 }]
    )
})

/**
 * A server on a free loopback port, with `HttpClient` pointed at it: `NodeHttpServer.layerTest` on 127.0.0.1 (it
 * listens on every interface).
 */
const LoopbackServer = HttpServer.layerTestClient.pipe(
  Layer.provide(
    Layer.fresh(FetchHttpClient.layer).pipe(
      Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { keepalive: false }))
    )
  ),
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)

/**
 * The API on a loopback port over `engine`, with `HttpClient` pointed at it. Logs below `logLevel` (warning by
 * default: the request log's info lines would fill the test output) are not written.
 */
export const serverLayer = <R, E>(
  engine: Layer.Layer<R | ApiServices, E>,
  options: {
    readonly maxBodyBytes?: number
    readonly rateLimits?: RateLimitSettings
    readonly logLevel?: LogLevel.LogLevel
  } = {}
) =>
  HttpLive.pipe(
    Layer.provide(options.rateLimits === undefined ? Layer.empty : Layer.succeed(RateLimitConfig, options.rateLimits)),
    Layer.provide(
      options.maxBodyBytes === undefined ? Layer.empty : Layer.succeed(HttpConfig, {
        maxBodyBytes: options.maxBodyBytes
      })
    ),
    Layer.provideMerge(LoopbackServer),
    Layer.provideMerge(engine),
    Layer.orDie,
    Layer.provide(Layer.succeed(References.MinimumLogLevel, options.logLevel ?? "Warn"))
  )

/**
 * The standalone server as `support-engine serve` runs it: from the environment, on a free loopback port over the
 * database `name`, with `settings` added to the environment.
 */
export const standalone = (name: string, settings: Record<string, string> = {}) =>
  StandaloneLive.pipe(
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({
      SUPPORT_PORT: "0",
      SUPPORT_DATABASE_URL: databaseUrl(name),
      ...settings
    }))),
    Layer.orDie
  )

/** The default test server: the real engine on its own database. */
export const testServer = (name: string) => serverLayer(engineLayer(name))

export interface Tenant {
  readonly workspace: Workspace
  readonly token: string
  readonly client: Client
}

/** A new workspace with one token of the given abilities, and a typed client using it. */
export const tenant = (abilities: ReadonlyArray<Ability> = ["external-api:write"]) =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name: "Acme" }))
    const [first, ...rest] = abilities
    const issued = yield* (yield* Tokens).create(
      new CreateApiToken({
        workspace_id: workspace.id,
        name: "test",
        abilities: [first ?? "external-api:read", ...rest]
      })
    )
    const token = Redacted.value(issued.plain)
    const client = yield* makeClient({ token })
    return { workspace, token, client } satisfies Tenant
  }).pipe(Effect.orDie)

/**
 * A workspace and a write token in the database `name`, both named after it, made in-process for a host that
 * builds its own engine; this engine is released after. The token's plain value.
 */
export const provision = (name: string) =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name }))
    const issued = yield* (yield* Tokens).create(
      new CreateApiToken({ workspace_id: workspace.id, name, abilities: ["external-api:write"] })
    )
    return Redacted.value(issued.plain)
  }).pipe(Effect.provide(engineLayer(name)), Effect.orDie)

/** Starts a `node:http` server on a free loopback port; its port. */
export const listen = (server: Server) =>
  Effect.callback<number>((resume) => {
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
  })

/** Stops a `node:http` server, its open connections too. */
export const close = (server: Server) =>
  Effect.callback<void>((resume) => {
    server.close(() => resume(Effect.void))
    server.closeAllConnections()
  })

/** Runs `self` in-process as the principal of `tenant`'s token (for setup the API does not offer). */
export const asTenant = (tenant: Tenant) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Effect.orDie(Effect.flatMap(Tokens, (tokens) => tokens.authenticate(Redacted.make(tenant.token)))),
    (principal) => Effect.provideService(self, Principal, principal)
  )

/** A user of `tenant`'s workspace (users are provisioned in the engine, not through `/v1`, D8). */
export const userOf = (tenant: Tenant) =>
  Effect.flatMap(
    Users,
    (users) =>
      users.create(new CreateUser({ workspace_id: tenant.workspace.id, name: "Ada", email: "ada@example.test" }))
  )
    .pipe(Effect.orDie)

/** Waits until the background worker has processed the training item `id` (D31). */
export const processed = (client: Client, id: TrainingDataId) =>
  client.training.get({ params: { id } }).pipe(
    Effect.orDie,
    Effect.filterOrFail((item) => item.status === "completed" || item.status === "failed"),
    Effect.retry(Schedule.spaced("20 millis")),
    Effect.timeoutOrElse({
      duration: "10 seconds",
      orElse: () => Effect.fail(new Error(`training item ${id} never settled`))
    }),
    Effect.orDie
  )

export interface RawResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The parsed JSON body, `undefined` when the body is empty or not JSON. */
  readonly body: unknown
}

export interface RawOptions {
  readonly token?: string
  /** Sent as JSON with `Content-Type: application/json`. */
  readonly json?: unknown
  /** Sent as is (no content type unless given in `headers`). */
  readonly body?: string | Uint8Array
  /** Sent chunked, without `Content-Length`. */
  readonly stream?: ReadableStream<Uint8Array>
  readonly headers?: Record<string, string>
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The base URL of the running test server, `http://127.0.0.1:<port>`. */
export const baseUrl = HttpServer.addressFormattedWith(Effect.succeed)

/** A plain `fetch` to the test server. */
export const raw = (method: string, path: string, options: RawOptions = {}) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.promise(async (): Promise<RawResponse> => {
      const headers: Record<string, string> = {}
      if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
      if (options.json !== undefined) headers["content-type"] = "application/json"
      Object.assign(headers, options.headers)
      const body = options.json !== undefined ? JSON.stringify(options.json) : options.stream ?? options.body
      const init: RequestInit & { duplex?: "half" } = { method, headers }
      if (body !== undefined) init.body = body
      if (options.stream !== undefined) init.duplex = "half"
      const response = await fetch(`${base}${path}`, init)
      const text = await response.text()
      return { status: response.status, headers: response.headers, text, body: parse(text) }
    }))

/** The standard error envelope (D12). */
export const envelope = (error: string, code: string | null) => ({ error, code, errors: null })

/**
 * The fan-out step of a dispatcher, which these servers do not run (issue 16 item 2): the events written so far get
 * their webhook deliveries.
 */
export const fanOut = Effect.flatMap(DeliveryQueue, (queue) => queue.fanOut(1000))
