/**
 * The floor of any server built on HttpApi here: the engine's own three benchmarked endpoints (imported from
 * `@support-engine/http`: path, query and body decoded, responses encoded with the engine's `Customer`, D17 list
 * envelope and `Conversation`), served by `HttpApiBuilder` on `NodeHttpServer` as the engine is, with handlers
 * that return fixed values. No storage, no authentication (it belongs to the engine's groups, not to these
 * endpoints), no middleware of ours. What the engine costs above this is ours; what this costs above the raw
 * server is the platform's (docs/performance.md).
 */
import { HttpApi, HttpApiBuilder, HttpApiGroup, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Conversation, ConversationId, Customer, CustomerId } from "@support-engine/core"
import { createConversation, getCustomer, listCustomers } from "@support-engine/http"
import { DateTime, Effect, Layer } from "effect"
import { createServer } from "node:http"
import { customerFields } from "../Fixtures.js"
import { ready, serverConfig } from "./Common.js"

const { port } = serverConfig()

const Api = HttpApi.make("floor").add(
  HttpApiGroup.make("floor").add(getCustomer).add(listCustomers).add(createConversation)
).prefix("/v1")

const at = DateTime.unsafeMake(Date.UTC(2024, 0, 1))
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

const Health = HttpApiBuilder.Router.use((router) =>
  router.get("/health", Effect.succeed(HttpServerResponse.unsafeJson({ status: "ok" })))
)

HttpApiBuilder.serve().pipe(
  Layer.provide(Health),
  Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(FloorLive))),
  Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })),
  Layer.launch,
  Effect.zipLeft(Effect.sync(() => ready(port))),
  Effect.runFork
)
