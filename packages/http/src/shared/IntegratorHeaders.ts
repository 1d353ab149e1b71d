/**
 * The headers of the integrator features in the OpenAPI document, which HttpApi has no way to declare
 * without making them required arguments of the typed client: `Idempotency-Key` on writes, `If-Match` on the
 * updates and deletes that check it, `ETag` on single-resource answers, the rate-limit headers on every answer and
 * `Retry-After` on 429. The behaviour is in IdempotencyKeys.ts, ETags.ts and RateLimits.ts.
 */
import { Predicate } from "effect"

type Json = Record<string, unknown>

/** Collections whose single resources carry an ETag and take If-Match (the handlers use ETags.ts). */
const TAGGED = [
  "/v1/agents",
  "/v1/customers",
  "/v1/companies",
  "/v1/conversations",
  "/v1/training-data",
  "/v1/kb-articles",
  "/v1/webhooks"
]

const idempotencyKey: Json = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Makes a retry safe: the first request with this key runs, a retry with the same request gets " +
    "the first answer (with `Idempotent-Replayed: true`). 1 to 255 characters, per workspace, kept 24 hours.",
  schema: { type: "string", minLength: 1, maxLength: 255 }
}

const ifMatch: Json = {
  name: "If-Match",
  in: "header",
  required: false,
  description: "The ETag this change is based on (or `*`); 412 PRECONDITION_FAILED, and no change, if the " +
    "resource changed since.",
  schema: { type: "string" }
}

const rateLimitHeaders: Json = {
  "RateLimit-Policy": {
    description: "The token's budget: `\"default\";q=<burst>;w=<seconds to refill>` (IETF draft)",
    schema: { type: "string" }
  },
  "RateLimit": {
    description: "What is left: `\"default\";r=<requests left>;t=<seconds until full>` (IETF draft)",
    schema: { type: "string" }
  }
}

const etag: Json = { description: "The resource's version, for If-Match", schema: { type: "string" } }
const replayed: Json = {
  description: "`true` on an answer replayed for a retried Idempotency-Key",
  schema: { type: "string", enum: ["true"] }
}
const retryAfter: Json = { description: "Seconds to wait before retrying", schema: { type: "integer", minimum: 1 } }

const WRITES = new Set(["post", "put", "patch", "delete"])

/** Adds the headers above to every operation of `spec` (in place) and returns it. */
export const documentIntegratorHeaders = <Spec extends Json>(spec: Spec): Spec => {
  const paths = Predicate.isObject(spec.paths) ? spec.paths : {}
  for (const [path, item] of Object.entries(paths)) {
    if (!Predicate.isObject(item)) continue
    const collection = TAGGED.find((base) => path === base || path === `${base}/{id}`)
    for (const [method, operation] of Object.entries(item)) {
      if (!Predicate.isObject(operation)) continue
      const parameters = Array.isArray(operation.parameters) ? operation.parameters : []
      const single = collection !== undefined && path.endsWith("/{id}")
      if (WRITES.has(method)) parameters.push(idempotencyKey)
      if (single && (method === "put" || method === "delete")) parameters.push(ifMatch)
      operation.parameters = parameters
      const responses = Predicate.isObject(operation.responses) ? operation.responses : {}
      const tagged = collection !== undefined && (single ? method !== "delete" : method === "post")
      for (const [status, response] of Object.entries(responses)) {
        if (!Predicate.isObject(response)) continue
        const headers: Json = { ...(Predicate.isObject(response.headers) ? response.headers : {}), ...rateLimitHeaders }
        if (status.startsWith("2") && tagged) headers.ETag = etag
        if (status.startsWith("2") && WRITES.has(method)) headers["Idempotent-Replayed"] = replayed
        if (status === "429") headers["Retry-After"] = retryAfter
        response.headers = headers
      }
    }
  }
  return spec
}
