/**
 * The floor of any server built on HttpApi here: the engine's own three benchmarked endpoints (imported from
 * `@support-engine/http`: path, query and body decoded, responses encoded with the engine's `Customer`, the list
 * envelope and `Conversation`), served by `HttpApiBuilder` on `NodeHttpServer` as the engine is, with handlers
 * that return fixed values. Behind the same bearer check as the engine's (a security middleware: no header,
 * a malformed one and a rejected token are 401s with the engine's messages, a token without the ability the method
 * needs a 403), the token looked up as the raw server looks it up (RawStore.ts: by id in the seeded SQLite file,
 * its SHA-256 compared in constant time). No storage otherwise, no request log, no middleware of ours. What the
 * engine costs above this is ours; what this costs above the raw server is the platform's (docs/performance.md).
 */
import { NodeHttpServer } from "@effect/platform-node"
import {
  Actor,
  ApiTokenId,
  broadAbility,
  Conversation,
  ConversationId,
  Customer,
  CustomerId,
  InsufficientAbility,
  OrganizationId,
  permits,
  Principal,
  type PrincipalShape,
  resourceAbility,
  Unauthenticated,
  WorkspaceId
} from "@support-engine/core"
import {
  createConversation,
  getCustomer,
  InsufficientAbilityResponse,
  listCustomers,
  requirementOf,
  UNAUTHENTICATED_MESSAGES,
  UnauthenticatedResponse
} from "@support-engine/http"
import { DateTime, Effect, Layer, Redacted } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { createServer } from "node:http"
import { customerFields } from "../Fixtures.js"
import { openRaw, ready, serverConfig } from "./Common.js"

const { database, port } = serverConfig()
const store = openRaw(database)

class FloorAuthentication extends HttpApiMiddleware.Service<FloorAuthentication, { provides: Principal }>()(
  "bench/FloorAuthentication",
  { error: [UnauthenticatedResponse, InsufficientAbilityResponse], security: { bearer: HttpApiSecurity.bearer } }
) {}

/** `Bearer <token id>|<secret>`, as the engine's Authentication.ts reads it. */
const BEARER = /^bearer [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\|[A-Za-z0-9_-]+$/i

const FloorAuthenticationLive = Layer.succeed(
  FloorAuthentication,
  FloorAuthentication.of({
    bearer: (httpEffect, { credential, endpoint }) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const header = request.headers["authorization"]
        if (header === undefined || header.trim() === "") {
          return yield* new Unauthenticated({ message: UNAUTHENTICATED_MESSAGES.missing })
        }
        if (!BEARER.test(header)) return yield* new Unauthenticated({ message: UNAUTHENTICATED_MESSAGES.malformed })
        const found = store.authenticate(`Bearer ${Redacted.value(credential)}`)
        if (found === null) return yield* new Unauthenticated({ message: UNAUTHENTICATED_MESSAGES.rejected })
        const principal: PrincipalShape = {
          workspaceId: WorkspaceId.make(found.workspaceId),
          organizationId: OrganizationId.make(found.organizationId),
          abilities: [found.canWrite ? "external-api:write" : "external-api:read"],
          actor: Actor.apiToken(ApiTokenId.make(found.tokenId))
        }
        // The floor serves endpoints of two groups as one: each is checked as its own group is.
        const group = endpoint.path.includes("conversations") ? "conversations" : "customers"
        const requirement = requirementOf(group, endpoint.identifier, endpoint.method)
        if (requirement !== null && !permits(principal, requirement)) {
          return yield* InsufficientAbility.lacking(resourceAbility(requirement), broadAbility(requirement.access))
        }
        return yield* Effect.provideService(httpEffect, Principal, principal)
      })
  })
)

const Api = HttpApi.make("floor").add(
  HttpApiGroup.make("floor").add(getCustomer).add(listCustomers).add(createConversation).middleware(
    FloorAuthentication
  )
).prefix("/v1")

const at = DateTime.makeUnsafe(Date.UTC(2024, 0, 1))
const customer = (i: number) =>
  new Customer({ ...customerFields(i, at), id: CustomerId.make(customerFields(i, at).id) })
const one = customer(1)
const page = Array.from({ length: 15 }, (_, i) => customer(i))
const link = "http://127.0.0.1/v1/customers?per_page=15&page=2"

const FloorLive = HttpApiBuilder.group(Api, "floor", (handlers) =>
  handlers
    .handle("get", () => Effect.succeed(one))
    .handle("list", () =>
      Effect.succeed({
        data: page,
        links: { first: link, last: link, prev: link, next: link },
        meta: {
          current_page: 2,
          from: 16,
          last_page: 6667,
          path: link,
          per_page: 15,
          to: 30,
          total: 100_000,
          next_cursor: null
        }
      }))
    .handle("create", ({ payload }) =>
      Effect.succeed(
        new Conversation({
          id: ConversationId.make("00000000-0000-4000-8000-000000000001"),
          channel: payload.channel ?? "chat",
          customer_id: payload.customer_id,
          agent_id: null,
          subject: payload.subject ?? null,
          status: "open",
          priority: "normal",
          assignee_id: null,
          assignee_type: null,
          tags: [],
          closed_at: null,
          first_response_at: null,
          last_message_at: null,
          is_spam: false,
          spam_score: 0,
          created_at: at,
          updated_at: at
        })
      )))

const Health = HttpRouter.add("GET", "/health", HttpServerResponse.jsonUnsafe({ status: "ok" }))

// Effect 4's stock request logger is off, as in the engine's server (its request log is its own): the floor has
// no log at all, as the raw and Fastify servers have none.
HttpRouter.serve(
  Layer.mergeAll(
    HttpApiBuilder.layer(Api).pipe(Layer.provide(FloorLive), Layer.provide(FloorAuthenticationLive)),
    Health
  ),
  { disableLogger: true, disableListenLog: true }
).pipe(
  Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })),
  Layer.tap(() => Effect.sync(() => ready(port))),
  Layer.launch,
  Effect.runFork
)
