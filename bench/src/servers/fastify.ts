/**
 * Baseline 2: what a user would build instead of adopting the engine: Fastify 5 with JSON-schema
 * validation (params, query, body) and response serialization, over the same better-sqlite3 statements.
 */
import Fastify, { type FastifyError } from "fastify"
import type { RawPrincipal } from "../RawStore.js"
import { openRaw, ready, serverConfig } from "./Common.js"

const { database, port } = serverConfig()
const store = openRaw(database)

const nullableString = { type: ["string", "null"] } as const
const timestamp = { type: "string" } as const
const customer = {
  type: "object",
  properties: {
    id: { type: "string" },
    first_name: nullableString,
    last_name: nullableString,
    email: nullableString,
    phone: nullableString,
    locale: nullableString,
    country: nullableString,
    company_id: nullableString,
    avatar_url: nullableString,
    first_seen_at: timestamp,
    last_seen_at: timestamp,
    created_at: timestamp,
    updated_at: timestamp
  }
} as const
const nullableInt = { type: ["integer", "null"] } as const
const list = {
  type: "object",
  properties: {
    data: { type: "array", items: customer },
    links: {
      type: "object",
      properties: { first: nullableString, last: nullableString, prev: nullableString, next: nullableString }
    },
    meta: {
      type: "object",
      properties: {
        current_page: { type: "integer" },
        from: nullableInt,
        last_page: { type: "integer" },
        path: { type: "string" },
        per_page: { type: "integer" },
        to: nullableInt,
        total: { type: "integer" }
      }
    }
  }
} as const
const conversation = {
  type: "object",
  properties: {
    id: { type: "string" },
    channel: { type: "string" },
    customer_id: { type: "string" },
    agent_id: nullableString,
    subject: nullableString,
    status: { type: "string" },
    priority: { type: "string" },
    assignee_id: nullableString,
    assignee_type: nullableString,
    tags: { type: "array", items: { type: "string" } },
    closed_at: nullableString,
    first_response_at: nullableString,
    last_message_at: nullableString,
    is_spam: { type: "boolean" },
    spam_score: { type: "integer" },
    created_at: timestamp,
    updated_at: timestamp
  }
} as const

const app = Fastify({ logger: false, keepAliveTimeout: 60_000, bodyLimit: 1024 * 1024 })

app.decorateRequest("principal", null)
declare module "fastify" {
  interface FastifyRequest {
    principal: RawPrincipal | null
  }
}

app.get("/health", async () => ({ status: "ok" }))

app.addHook("onRequest", async (request, reply) => {
  if (request.url === "/health") return
  const principal = store.authenticate(request.headers.authorization)
  if (principal === null) {
    return reply.code(401).send({ error: "Unauthenticated.", code: "UNAUTHENTICATED", errors: null })
  }
  request.principal = principal
})

app.setErrorHandler((error: FastifyError, _request, reply) => {
  if (error.validation !== undefined) {
    const errors: Record<string, Array<string>> = {}
    for (const v of error.validation) {
      const key = v.instancePath.replace(/^\//, "").replaceAll("/", ".") || String(v.params.missingProperty ?? "body")
      ;(errors[key] ??= []).push(v.message ?? "is invalid")
    }
    return reply.code(422).send({ message: "The given data was invalid.", errors })
  }
  return reply.code(error.statusCode ?? 500).send({ error: "Internal server error.", code: null, errors: null })
})

app.get<{ Params: { id: string } }>("/v1/customers/:id", {
  schema: {
    params: { type: "object", properties: { id: { type: "string", format: "uuid" } }, required: ["id"] },
    response: { 200: customer }
  }
}, async (request, reply) => {
  const found = store.getCustomer(request.principal!.workspaceId, request.params.id)
  if (found === undefined) {
    return reply.code(404).send({ error: "Customer not found.", code: "RESOURCE_NOT_FOUND", errors: null })
  }
  return found
})

app.get<{ Querystring: { page: number; per_page: number } }>("/v1/customers", {
  schema: {
    querystring: {
      type: "object",
      properties: {
        page: { type: "integer", minimum: 1, default: 1 },
        per_page: { type: "integer", minimum: 1, maximum: 100, default: 15 }
      }
    },
    response: { 200: list }
  }
}, async (request) => {
  const url = new URL(request.url, `http://${request.headers.host ?? "localhost"}`)
  return store.listCustomers(request.principal!.workspaceId, request.query.page, request.query.per_page, url)
})

app.post<{ Body: { customer_id: string; subject?: string | null } }>("/v1/conversations", {
  schema: {
    body: {
      type: "object",
      properties: {
        customer_id: { type: "string", format: "uuid" },
        subject: { type: ["string", "null"], maxLength: 500 }
      },
      required: ["customer_id"]
    },
    response: { 201: conversation }
  }
}, async (request, reply) => {
  const principal = request.principal!
  if (!principal.canWrite) {
    return reply.code(403).send({
      error: "This token lacks the external-api:write ability.",
      code: "INSUFFICIENT_TOKEN_ABILITY",
      errors: null
    })
  }
  const result = store.createConversation(principal, request.body)
  if (result._tag === "Invalid") {
    return reply.code(422).send({ message: "The given data was invalid.", errors: result.errors })
  }
  return reply.code(201).send(result.conversation)
})

await app.listen({ port, host: "127.0.0.1" })
ready(port)
