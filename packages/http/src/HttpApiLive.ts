/**
 * The API as layers: `HttpApiLive` adds its routes (every group's handlers, the request middleware, `/health`,
 * `/ready`, `/openapi.json`, `/docs` and the MCP server at `/mcp`) to an `HttpRouter`; `HttpLive` serves them on the
 * host's `HttpServer`. Both need the engine's services (`ApiServices`), which `supportEngineLayer` of
 * `@support-engine/engine` provides.
 */
import type {
  AgentAsk,
  Agents,
  Companies,
  Conversations,
  Copilot,
  CustomerExports,
  Customers,
  Events,
  Idempotency,
  IdGenerator,
  KnowledgeBase,
  Messages,
  Readiness,
  Tokens,
  Training,
  Webhooks
} from "@support-engine/core"
import { type FileSystem, Layer, type Path } from "effect"
import { type Etag, type HttpPlatform, HttpRouter, type HttpServer } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { AgentsHttpLive } from "./agents/AgentsHttp.js"
import { Api } from "./Api.js"
import { CompaniesHttpLive } from "./companies/CompaniesHttp.js"
import { ConversationsHttpLive } from "./conversations/ConversationsHttp.js"
import { MessagesHttpLive } from "./conversations/MessagesHttp.js"
import { CustomersHttpLive } from "./customers/CustomersHttp.js"
import { DocsLive } from "./Docs.js"
import { EventsHttpLive } from "./events/EventsHttp.js"
import { KnowledgeBaseHttpLive } from "./knowledge-base/KnowledgeBaseHttp.js"
import { McpHttpLive } from "./mcp/McpServers.js"
import { ApiErrorsLive } from "./shared/ApiErrors.js"
import { AuthenticationLive } from "./shared/Authentication.js"
import { PublicUrl } from "./shared/PublicUrl.js"
import { RequestMiddlewareLive } from "./shared/RequestMiddleware.js"
import { TokenHttpLive } from "./tokens/TokenHttp.js"
import { TrainingHttpLive } from "./training/TrainingHttp.js"
import { WebhooksHttpLive } from "./webhooks/WebhooksHttp.js"

/** The services the handlers call: core's, webhook subscriptions included (the engine's layer provides them all). */
export type ApiServices =
  | Tokens
  | IdGenerator
  | Idempotency
  | Events
  | Agents
  | AgentAsk
  | Copilot
  | Conversations
  | Messages
  | Training
  | KnowledgeBase
  | Customers
  | CustomerExports
  | Companies
  | Webhooks
  | Readiness

const GroupsLive = Layer.mergeAll(
  EventsHttpLive,
  AgentsHttpLive,
  ConversationsHttpLive,
  MessagesHttpLive,
  TrainingHttpLive,
  KnowledgeBaseHttpLive,
  CustomersHttpLive,
  CompaniesHttpLive,
  WebhooksHttpLive,
  TokenHttpLive
).pipe(Layer.provide(AuthenticationLive), Layer.provide(ApiErrorsLive))

/** What serving the API needs of the platform: its file system, paths, HTTP platform and ETag generator. */
export type PlatformServices = Etag.Generator | FileSystem.FileSystem | HttpPlatform.HttpPlatform | Path.Path

/**
 * The API with its handlers, request middleware, the `/health`, `/openapi.json` and `/docs` routes and the MCP
 * server at `/mcp` (McpServers.ts), added to
 * the `HttpRouter` that `HttpRouter.serve`, `HttpRouter.toWebHandler` or `HttpRouter.toHttpEffect` turn into a
 * server or handler (with `disableLogger: true`: the request log is the API's own, RequestLog.ts).
 */
export const HttpApiLive: Layer.Layer<never, never, HttpRouter.HttpRouter | PlatformServices | ApiServices> = Layer
  .mergeAll(HttpApiBuilder.layer(Api), DocsLive, RequestMiddlewareLive, Layer.orDie(McpHttpLive))
  .pipe(Layer.provide(GroupsLive))

/**
 * `SUPPORT_PUBLIC_URL`, else the host server's own address. A malformed value stops the server at start,
 * with the config error as the cause, instead of putting wrong links in every list.
 */
const PublicUrlOnServer: Layer.Layer<never, never, HttpServer.HttpServer> = PublicUrl.fromEnv.pipe(Layer.orDie)

/** The API served on the host's `HttpServer` (any platform's), lists linked on its public address. */
export const HttpLive: Layer.Layer<never, never, HttpServer.HttpServer | PlatformServices | ApiServices> = HttpRouter
  .serve(HttpApiLive, { disableLogger: true, disableListenLog: true })
  .pipe(Layer.provide(PublicUrlOnServer))
