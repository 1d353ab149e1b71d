/**
 * The whole `/v1` API as one HttpApi: one group per resource, request and response
 * schemas from core, every error response declared (ErrorResponses.ts, and ApiErrors.ts for those every endpoint
 * shares) so OpenAPI and the typed client know them.
 */
import { Predicate, SchemaAST } from "effect"
import { HttpApi, OpenApi } from "effect/http-api"
import { AgentsApi } from "./agents/AgentsApi.js"
import { CompaniesApi } from "./companies/CompaniesApi.js"
import { ConversationsApi } from "./conversations/ConversationsApi.js"
import { MessagesApi } from "./conversations/MessagesApi.js"
import { CustomersApi } from "./customers/CustomersApi.js"
import { EventsApi } from "./events/EventsApi.js"
import { KnowledgeBaseApi } from "./knowledge-base/KnowledgeBaseApi.js"
import { documentAbilities } from "./shared/Abilities.js"
import { ApiErrors } from "./shared/ApiErrors.js"
import { Authentication } from "./shared/Authentication.js"
import { documentIntegratorHeaders } from "./shared/IntegratorHeaders.js"
import { correctDocument } from "./shared/OpenApiDocument.js"
import { TokenApi } from "./tokens/TokenApi.js"
import { TrainingApi } from "./training/TrainingApi.js"
import { WebhooksApi } from "./webhooks/WebhooksApi.js"

const SCHEMAS = "#/components/schemas/"

const valuesOf = (value: unknown): ReadonlyArray<unknown> => Predicate.isObject(value) ? Object.values(value) : []

/** Every `$ref` in `value`, rewritten by `rename` (in place). */
const renameRefs = (value: unknown, rename: (name: string) => string): void => {
  if (Array.isArray(value)) return value.forEach((item) => renameRefs(item, rename))
  if (!Predicate.isObject(value)) return
  if (typeof value.$ref === "string" && value.$ref.startsWith(SCHEMAS)) {
    value.$ref = `${SCHEMAS}${rename(value.$ref.slice(SCHEMAS.length))}`
  }
  Object.values(value).forEach((item) => renameRefs(item, rename))
}

/**
 * Components under the names of their schemas. Effect names the wire form of a schema whose identifier is on its
 * decoded side (every class: `Agent`, with `DateTime`s) `AgentEncoded`; the document has one form of each, so it
 * keeps the schema's own name, unless another component has it.
 */
const namedAsTheirSchemas = (spec: Record<string, unknown>): void => {
  const container = spec.components
  if (!Predicate.isObject(container) || !Predicate.isObject(container.schemas)) return
  const components = container.schemas
  const renamed = new Map<string, string>()
  for (const name of Object.keys(components)) {
    const base = name.endsWith("Encoded") ? name.slice(0, -"Encoded".length) : name
    if (base !== name && base !== "" && !(base in components)) renamed.set(name, base)
  }
  if (renamed.size === 0) return
  const rename = (name: string) => renamed.get(name) ?? name
  const schemas: Record<string, unknown> = {}
  for (const [name, schema] of Object.entries(components)) schemas[rename(name)] = schema
  container.schemas = schemas
  renameRefs(spec.paths, rename)
  renameRefs(schemas, rename)
}

/** The components of the errors every endpoint shares (ApiErrors.ts), then of those of authentication. */
const SHARED_ERRORS: ReadonlyArray<string> = [...ApiErrors.error, ...Authentication.error].flatMap((schema) => {
  const name = SchemaAST.resolveIdentifier(SchemaAST.toEncoded(schema.ast))
  return name === undefined ? [] : [name]
})

const rank = (member: unknown): number => {
  const ref = Predicate.isObject(member) && typeof member.$ref === "string" ? member.$ref.slice(SCHEMAS.length) : ""
  const index = SHARED_ERRORS.indexOf(ref)
  return index === -1 ? SHARED_ERRORS.length : index
}

/**
 * Each error answer lists the errors every endpoint shares first, then the endpoint's own, and is described by the
 * first of them (a 400 is always a business rule the request broke): one description per answer, where Effect
 * joins those of all its schemas.
 */
const describeErrorAnswers = (spec: Record<string, unknown>): void => {
  const components = Predicate.isObject(spec.components) && Predicate.isObject(spec.components.schemas)
    ? spec.components.schemas
    : {}
  for (const operation of valuesOf(spec.paths).flatMap(valuesOf)) {
    if (!Predicate.isObject(operation) || !Predicate.isObject(operation.responses)) continue
    for (const [status, response] of Object.entries(operation.responses)) {
      if (Number(status) < 400 || !Predicate.isObject(response) || !Predicate.isObject(response.content)) continue
      const media = response.content["application/json"]
      if (!Predicate.isObject(media) || !Predicate.isObject(media.schema)) continue
      const members = Array.isArray(media.schema.anyOf) ? media.schema.anyOf : [media.schema]
      const ordered = [...members].sort((a, b) => rank(a) - rank(b))
      if (Array.isArray(media.schema.anyOf)) media.schema.anyOf = ordered
      const first = ordered[0]
      const component = Predicate.isObject(first) && typeof first.$ref === "string"
        ? components[first.$ref.slice(SCHEMAS.length)]
        : first
      const description = Predicate.isObject(component) ? component.description : undefined
      if (status === "400") response.description = "Business rule violated"
      else if (typeof description === "string") response.description = description
    }
  }
}

/** Request bodies ignore unknown fields: their schemas must not say `additionalProperties: false`. */
const openRequestBodies = (spec: Record<string, unknown>): void => {
  const components = Predicate.isObject(spec.components) && Predicate.isObject(spec.components.schemas)
    ? spec.components.schemas
    : {}
  const seen = new Set<unknown>()
  const open = (schema: unknown): void => {
    if (seen.has(schema)) return
    seen.add(schema)
    if (Array.isArray(schema)) return schema.forEach(open)
    if (!Predicate.isObject(schema)) return
    if (schema.additionalProperties === false) delete schema.additionalProperties
    if (typeof schema.$ref === "string") open(components[schema.$ref.replace(SCHEMAS, "")])
    Object.values(schema).forEach(open)
  }
  for (const operation of valuesOf(spec.paths).flatMap(valuesOf)) {
    if (Predicate.isObject(operation)) open(operation.requestBody)
  }
}

/** The generated document, corrected where it would not describe what the server does. */
const tidyDocument = <Spec extends Record<string, unknown>>(spec: Spec): Spec => {
  namedAsTheirSchemas(spec)
  describeErrorAnswers(spec)
  openRequestBodies(spec)
  correctDocument(spec)
  documentIntegratorHeaders(spec)
  documentAbilities(spec)
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
  .add(TokenApi)
  .middleware(ApiErrors)
  .prefix("/v1")
  // Every field error of a request, not only the first.
  .annotate(HttpApi.ParseOptions, { errors: "all" })
  .annotate(OpenApi.Title, "support-engine")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(
    OpenApi.Description,
    "The Workspace Support API: every request carries a workspace API token (Authorization: Bearer). " +
      "Errors use the envelope {error, code, errors}; validation failures are 422 {message, errors}."
  )
  .annotate(OpenApi.Transform, tidyDocument)
{}
