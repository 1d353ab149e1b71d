/**
 * The Model Context Protocol server (effect/ai's `McpServer`) over the API's tools: one set of registrations, served
 * over stdio (`support-engine mcp`, the token given once) and over Streamable HTTP at `POST /mcp` beside the API
 * (the token on every request). Either way each call runs through core's services under the token's principal, so
 * abilities, workspace isolation, validation and events are exactly those of the HTTP API.
 */
import {
  type AgentAsk,
  type Conversations,
  type Copilot,
  type Customers,
  type KnowledgeBase,
  type Messages,
  PersistenceError,
  Principal,
  Tokens,
  Unauthenticated
} from "@support-engine/core"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { McpProtocol, McpSchema, McpServer } from "effect/ai"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { UNAUTHENTICATED_MESSAGES } from "../shared/Authentication.js"
import { PersistenceErrorResponse, renderError, UnauthenticatedResponse } from "../shared/ErrorResponses.js"
import { PublicUrl } from "../shared/PublicUrl.js"
import { recordRoute, recordWorkspace } from "../shared/RequestLog.js"
import { AgentTools, AgentToolsLive } from "./AgentTools.js"
import { argumentErrorsAsResults } from "./ArgumentErrors.js"
import { ArticleResourcesLive } from "./ArticleResources.js"
import { ConversationTools, ConversationToolsLive } from "./ConversationTools.js"
import { CopilotTools, CopilotToolsLive } from "./CopilotTools.js"
import { CustomerTools, CustomerToolsLive } from "./CustomerTools.js"
import { KnowledgeBaseTools, KnowledgeBaseToolsLive } from "./KnowledgeBaseTools.js"
import { ToolVisibility } from "./ToolAccess.js"

export const SERVER_NAME = "support-engine"
export const SERVER_VERSION = "0.1.0"
/** The path of the Streamable HTTP endpoint on the API server. */
export const MCP_PATH = "/mcp"

/**
 * 2025-06-18 first: a client that offers a version not listed (a newer one) is answered with 2025-06-18. The older
 * versions the library implements are accepted when a client asks for them.
 */
export const PROTOCOLS = [McpProtocol.v2025_06_18, McpProtocol.v2025_03_26, McpProtocol.v2024_11_05] as const

const INSTRUCTIONS = "Tools of a customer-support workspace: search and read conversations, customers and published " +
  "knowledge-base articles, reply to and triage conversations, ask the workspace's AI agents, and have them " +
  "draft replies and summaries. Results are the " +
  "JSON of the support-engine HTTP API; a failed call's text starts with the error code (RESOURCE_NOT_FOUND, " +
  "VALIDATION_ERROR, ...)."

/** The services the tools call, built once per server. */
export type McpToolServices = Conversations | Messages | Customers | KnowledgeBase | AgentAsk | Copilot

/**
 * Every toolkit and the article resources, each listed and callable only when the request's principal may call it
 * (ToolAccess.ts). The principal is a request-level service: the transport's middleware provides it.
 */
export const McpRegistrations = Layer.mergeAll(
  Layer.mergeAll(
    McpServer.toolkit(ConversationTools),
    McpServer.toolkit(CustomerTools),
    McpServer.toolkit(KnowledgeBaseTools),
    McpServer.toolkit(AgentTools),
    McpServer.toolkit(CopilotTools)
  ).pipe(
    Layer.provide(
      argumentErrorsAsResults([ConversationTools, CustomerTools, KnowledgeBaseTools, AgentTools, CopilotTools])
    )
  ),
  ArticleResourcesLive
).pipe(
  Layer.provide(ToolVisibility.layer),
  Layer.provide(
    Layer.mergeAll(ConversationToolsLive, CustomerToolsLive, KnowledgeBaseToolsLive, AgentToolsLive, CopilotToolsLive)
  )
)

/** A token that stopped being accepted while a stdio server runs (revoked or expired): a JSON-RPC error. */
export class McpUnauthenticated extends Schema.TaggedError<McpUnauthenticated>()("McpUnauthenticated", {
  ...McpSchema.McpErrorBase.fields,
  _tag: Schema.tag("McpUnauthenticated"),
  code: Schema.tag(-32001)
}) {}

const rejected = () => new McpUnauthenticated({ code: -32001, message: UNAUTHENTICATED_MESSAGES.rejected })
const internal = () => new McpSchema.InternalError({ message: "Internal server error." })

/**
 * The principal of one token for every request of a stdio session, authenticated on each request so a revoked or
 * expired token stops working at once.
 */
const stdioPrincipal = (token: Redacted.Redacted<string>) =>
  McpServer.middleware<{ provides: Principal }>()(
    Effect.map(
      Tokens,
      (tokens) => (effect: Effect.Effect<McpServer.MiddlewareSuccess, McpSchema.McpErrorBase, Principal>) =>
        tokens.authenticate(token).pipe(
          Effect.catchTags({
            Unauthenticated: () => Effect.fail(rejected()),
            PersistenceError: () => Effect.fail(internal())
          }),
          Effect.flatMap((principal) => Effect.provideService(effect, Principal, principal))
        )
    )
  )

/**
 * The server over stdio for one token (the caller checks it first, to refuse a bad one before serving). Its
 * standard output is the protocol channel: the host must log to standard error.
 */
export const mcpStdio = (token: Redacted.Redacted<string>) =>
  McpServer.layerStdio({
    name: SERVER_NAME,
    version: SERVER_VERSION,
    instructions: INSTRUCTIONS,
    protocols: PROTOCOLS,
    registrations: McpRegistrations.pipe(Layer.provide(stdioPrincipal(token).layerGlobal))
  })

/** `Bearer <token>`: what follows the scheme, or nothing. */
const bearerOf = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const match = /^bearer\s+(\S+)\s*$/i.exec(header)
  return match === null ? undefined : match[1]
}

const unauthenticated = (message: string) =>
  renderError(UnauthenticatedResponse, new Unauthenticated({ message }), Unauthenticated.status).pipe(
    HttpServerResponse.setHeader("www-authenticate", "Bearer")
  )

/**
 * The bearer token of every `/mcp` request, as a real HTTP 401 (the API's error body) before any MCP processing
 * when it is missing or not accepted. The request log learns the route and the token's workspace, as on the API.
 */
const BearerPrincipal = HttpRouter.middleware<{ provides: Principal }>()(
  Effect.map(Tokens, (tokens) => (httpEffect) =>
    Effect.gen(function*() {
      yield* recordRoute
      const request = yield* HttpServerRequest.HttpServerRequest
      const header = request.headers["authorization"]
      if (header === undefined || header.trim() === "") return unauthenticated(UNAUTHENTICATED_MESSAGES.missing)
      const bearer = bearerOf(header)
      if (bearer === undefined) return unauthenticated(UNAUTHENTICATED_MESSAGES.malformed)
      const principal = yield* Effect.result(tokens.authenticate(Redacted.make(bearer)))
      if (principal._tag === "Failure") {
        const error = principal.failure
        return error instanceof PersistenceError
          ? renderError(PersistenceErrorResponse, error, PersistenceError.status)
          : unauthenticated(UNAUTHENTICATED_MESSAGES.rejected)
      }
      yield* recordWorkspace(principal.success.workspaceId)
      return yield* Effect.provideService(httpEffect, Principal, principal.success)
    }))
)

/**
 * `POST /mcp` (and `DELETE /mcp` to end a session) on the API's router, behind the API's request middleware (limits,
 * rate limits, request log). A request with an `Origin` header is served only when it is the public URL's origin
 * (`SUPPORT_PUBLIC_URL`, else the server's own address): a web page elsewhere cannot drive a local server.
 */
export const McpHttpLive = Layer.unwrap(
  Effect.map(PublicUrl, (publicUrl) =>
    McpServer.layerHttp({
      name: SERVER_NAME,
      version: SERVER_VERSION,
      instructions: INSTRUCTIONS,
      path: MCP_PATH,
      protocols: PROTOCOLS,
      allowedOrigins: Option.match(publicUrl, { onNone: () => [], onSome: (url) => [url.origin] }),
      allowSessionTermination: true,
      registrations: McpRegistrations
    }).pipe(Layer.provide(BearerPrincipal.layer)))
)
