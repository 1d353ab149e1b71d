import type { Resource } from "@support-engine/core"

/** Every endpoint of the contract (spec + D19-D32, D36, D45) that is served so far, as method and path template. */
export interface EndpointSpec {
  readonly method: "GET" | "POST" | "PUT" | "DELETE"
  /** As OpenAPI writes it: `/v1/companies/{id}`. */
  readonly path: string
  /** The success status (D21). */
  readonly status: 200 | 201 | 202 | 204
  /** A paginated list (D17). */
  readonly list?: true
  /** A POST that only reads, so a read token may call it (D53's ask). */
  readonly reads?: true
  /** The resource whose abilities allow it (D58); `null`: any valid token may call it. */
  readonly resource: Resource | null
}

const crud = (collection: string, resource: Resource): ReadonlyArray<EndpointSpec> => [
  { method: "POST", path: `/v1/${collection}`, status: 201, resource },
  { method: "GET", path: `/v1/${collection}`, status: 200, list: true, resource },
  { method: "GET", path: `/v1/${collection}/{id}`, status: 200, resource },
  { method: "PUT", path: `/v1/${collection}/{id}`, status: 200, resource },
  { method: "DELETE", path: `/v1/${collection}/{id}`, status: 204, resource }
]

export const ENDPOINTS: ReadonlyArray<EndpointSpec> = [
  { method: "GET", path: "/v1/events", status: 200, list: true, resource: "events" },
  ...crud("agents", "agents"),
  { method: "POST", path: "/v1/agents/{id}/ask", status: 200, reads: true, resource: "agents" },
  ...crud("conversations", "conversations"),
  { method: "POST", path: "/v1/conversations/{id}/suggest-reply", status: 200, reads: true, resource: "conversations" },
  { method: "POST", path: "/v1/conversations/{id}/summarize", status: 200, reads: true, resource: "conversations" },
  { method: "POST", path: "/v1/conversations/{id}/messages", status: 201, resource: "conversations" },
  { method: "GET", path: "/v1/messages", status: 200, list: true, resource: "conversations" },
  { method: "DELETE", path: "/v1/messages/{id}", status: 204, resource: "conversations" },
  ...crud("training-data", "training"),
  { method: "POST", path: "/v1/training-data/url/process", status: 201, resource: "training" },
  { method: "GET", path: "/v1/training-data/url/exists", status: 200, resource: "training" },
  { method: "POST", path: "/v1/training-data/{id}/resync-now", status: 200, resource: "training" },
  { method: "POST", path: "/v1/kb-articles", status: 201, resource: "knowledge-base" },
  { method: "GET", path: "/v1/kb-articles", status: 200, list: true, resource: "knowledge-base" },
  { method: "GET", path: "/v1/kb-articles/{id}", status: 200, resource: "knowledge-base" },
  { method: "PUT", path: "/v1/kb-articles/{id}", status: 200, resource: "knowledge-base" },
  { method: "PUT", path: "/v1/kb-articles/{id}/translations/{locale}", status: 200, resource: "knowledge-base" },
  { method: "GET", path: "/v1/kb-articles/{id}/revisions", status: 200, resource: "knowledge-base" },
  {
    method: "POST",
    path: "/v1/kb-articles/{id}/revisions/{revisionId}/restore",
    status: 200,
    resource: "knowledge-base"
  },
  ...crud("webhooks", "webhooks"),
  { method: "POST", path: "/v1/webhooks/{id}/rotate-secret", status: 200, resource: "webhooks" },
  { method: "POST", path: "/v1/webhooks/{id}/enable", status: 200, resource: "webhooks" },
  { method: "GET", path: "/v1/webhooks/{id}/deliveries", status: 200, resource: "webhooks" },
  { method: "POST", path: "/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver", status: 200, resource: "webhooks" },
  { method: "POST", path: "/v1/webhooks/{id}/ping", status: 202, resource: "webhooks" },
  { method: "POST", path: "/v1/webhooks/{id}/recover", status: 202, resource: "webhooks" },
  ...crud("customers", "customers"),
  { method: "GET", path: "/v1/customers/{id}/export", status: 200, resource: "customers" },
  { method: "POST", path: "/v1/customers/{id}/erase", status: 200, resource: "customers" },
  ...crud("companies", "companies"),
  { method: "GET", path: "/v1/token", status: 200, resource: null }
]

/** The template with every parameter set to a UUID that names nothing. */
export const concrete = (path: string): string => path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000")
