/**
 * The whole `/v1` API (spec + D19-D32, D36, D45) as one HttpApi: one group per resource, request and response
 * schemas from core, every error response declared (ErrorResponses.ts) so OpenAPI and the typed client know them.
 */
import { HttpApi, OpenApi } from "@effect/platform"
import { Predicate } from "effect"
import { AgentsApi } from "./agents/AgentsApi.js"
import { CompaniesApi } from "./companies/CompaniesApi.js"
import { ConversationsApi } from "./conversations/ConversationsApi.js"
import { MessagesApi } from "./conversations/MessagesApi.js"
import { CustomersApi } from "./customers/CustomersApi.js"
import { EventsApi } from "./events/EventsApi.js"
import { KnowledgeBaseApi } from "./knowledge-base/KnowledgeBaseApi.js"
import {
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  PersistenceErrorResponse,
  ValidationErrorResponse
} from "./shared/ErrorResponses.js"
import { documentIntegratorHeaders } from "./shared/IntegratorHeaders.js"
import { correctDocument } from "./shared/OpenApiDocument.js"
import { RateLimitedResponse } from "./shared/RateLimits.js"
import { TrainingApi } from "./training/TrainingApi.js"
import { WebhooksApi } from "./webhooks/WebhooksApi.js"

const DECODE_ERROR = "#/components/schemas/HttpApiDecodeError"

const isDecodeError = (schema: unknown): boolean => Predicate.isRecord(schema) && schema.$ref === DECODE_ERROR

const valuesOf = (value: unknown): ReadonlyArray<unknown> => Predicate.isRecord(value) ? Object.values(value) : []

/** Request bodies ignore unknown fields (D13): their schemas must not say `additionalProperties: false`. */
const openRequestBodies = (spec: Record<string, unknown>): void => {
  const components = Predicate.isRecord(spec.components) && Predicate.isRecord(spec.components.schemas)
    ? spec.components.schemas
    : {}
  const seen = new Set<unknown>()
  const open = (schema: unknown): void => {
    if (seen.has(schema)) return
    seen.add(schema)
    if (Array.isArray(schema)) return schema.forEach(open)
    if (!Predicate.isRecord(schema)) return
    if (schema.additionalProperties === false) delete schema.additionalProperties
    if (typeof schema.$ref === "string") open(components[schema.$ref.replace("#/components/schemas/", "")])
    Object.values(schema).forEach(open)
  }
  for (const operation of valuesOf(spec.paths).flatMap(valuesOf)) {
    if (Predicate.isRecord(operation)) open(operation.requestBody)
  }
}

/**
 * Effect's JSON Schema marks `unknown` as `{"$id": "/schemas/unknown"}`; the same `$id` twice makes the document
 * invalid (event `data` and the prohibited `model` field both have one), and it means nothing to a client.
 */
const withoutSchemaIds = (value: unknown): void => {
  if (Array.isArray(value)) return value.forEach(withoutSchemaIds)
  if (!Predicate.isRecord(value)) return
  if (typeof value.$id === "string" && value.$id.startsWith("/schemas/")) delete value.$id
  Object.values(value).forEach(withoutSchemaIds)
}

/**
 * The generated document, corrected where it would not describe what the server does. HttpApi declares its own
 * decode error (400 `HttpApiDecodeError`) on every endpoint; this API never sends it (decode failures are the
 * 422 of D13, RequestMiddleware.ts), so the document drops it.
 */
const tidyDocument = <Spec extends Record<string, unknown>>(spec: Spec): Spec => {
  for (const operation of valuesOf(spec.paths).flatMap(valuesOf)) {
    if (!Predicate.isRecord(operation) || !Predicate.isRecord(operation.responses)) continue
    const responses = operation.responses
    const response = responses["400"]
    if (!Predicate.isRecord(response) || !Predicate.isRecord(response.content)) continue
    const media = response.content["application/json"]
    if (!Predicate.isRecord(media)) continue
    const schema = media.schema
    if (isDecodeError(schema)) {
      delete responses["400"]
    } else if (Predicate.isRecord(schema) && Array.isArray(schema.anyOf)) {
      const rest = schema.anyOf.filter((member) => !isDecodeError(member))
      media.schema = rest.length === 1 ? rest[0] : { ...schema, anyOf: rest }
      response.description = "Business rule violated"
    }
  }
  openRequestBodies(spec)
  withoutSchemaIds(spec)
  correctDocument(spec)
  documentIntegratorHeaders(spec)
  const components = spec.components
  if (Predicate.isRecord(components) && Predicate.isRecord(components.schemas)) {
    for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete components.schemas[name]
  }
  return spec
}

export class Api extends HttpApi.make("support-engine")
  .add(AgentsApi)
  .add(ConversationsApi)
  .add(MessagesApi)
  .add(CustomersApi)
  .add(CompaniesApi)
  .add(TrainingApi)
  .add(KnowledgeBaseApi)
  .add(WebhooksApi)
  .add(EventsApi)
  .addError(ValidationErrorResponse)
  .addError(PersistenceErrorResponse)
  .addError(IdempotencyKeyReusedResponse)
  .addError(IdempotencyKeyInUseResponse)
  .addError(RateLimitedResponse)
  .prefix("/v1")
  .annotate(OpenApi.Title, "support-engine")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(
    OpenApi.Description,
    "The Workspace Support API: every request carries a workspace API token (Authorization: Bearer). " +
      "Errors use the envelope {error, code, errors}; validation failures are 422 {message, errors}."
  )
  .annotate(OpenApi.Transform, tidyDocument)
{}
