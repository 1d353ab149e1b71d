/**
 * Corrections to the generated OpenAPI document where HttpApi cannot say what the server does:
 * the JSON body answers (400, 413, 415) that JsonBody.ts gives before any endpoint decodes, request bodies that may
 * be left out, the query integers HttpApi documents as strings (Lists.ts), and the auto titles Effect's filters
 * carry (`maxLength(255)`), which name Effect internals.
 */
import { Predicate } from "effect"
import { HttpFailure } from "./ErrorResponses.js"
import { LIST_PARAMETERS } from "./Lists.js"

type Json = Record<string, unknown>

const SCHEMAS = "#/components/schemas/"

/** The JSON body rules' failures of a request body, as envelope schemas named like the other error components. */
const BODY_FAILURES = [
  {
    status: "400",
    name: "MalformedJson",
    failure: HttpFailure.malformedJson,
    description: "The body is not valid JSON"
  },
  {
    status: "413",
    name: "PayloadTooLarge",
    failure: HttpFailure.payloadTooLarge(0),
    description: "The body is larger than the server's limit (SUPPORT_MAX_BODY_BYTES)"
  },
  {
    status: "415",
    name: "UnsupportedMediaType",
    failure: HttpFailure.unsupportedMediaType,
    description: "A non-empty body whose Content-Type is not application/json"
  }
] as const

const envelopeSchema = (code: string | null, description: string): Json => ({
  type: "object",
  required: ["error", "code", "errors"],
  properties: { error: { type: "string" }, code: { type: "string", enum: [code] }, errors: { type: "null" } },
  additionalProperties: false,
  description
})

const operationsOf = (spec: Json): Array<Json> =>
  Object.values(Predicate.isObject(spec.paths) ? spec.paths : {}).flatMap((item) =>
    Predicate.isObject(item) ? Object.values(item).filter(Predicate.isObject) : []
  )

const resolve = (schemas: Json, schema: unknown): Json | undefined => {
  if (!Predicate.isObject(schema)) return undefined
  return typeof schema.$ref === "string" && schema.$ref.startsWith(SCHEMAS)
    ? resolve(schemas, schemas[schema.$ref.slice(SCHEMAS.length)])
    : schema
}

/** Adds `ref` to the response's JSON schema, as an `anyOf` member when the status already has a schema. */
const addAnswer = (responses: Json, status: string, ref: Json, description: string): void => {
  const existing = responses[status]
  const media = Predicate.isObject(existing) && Predicate.isObject(existing.content)
    ? existing.content["application/json"]
    : undefined
  if (!Predicate.isObject(existing) || !Predicate.isObject(media) || !Predicate.isObject(media.schema)) {
    responses[status] = { description, content: { "application/json": { schema: ref } } }
    return
  }
  const members = Array.isArray(media.schema.anyOf) ? media.schema.anyOf : [media.schema]
  media.schema = { anyOf: [...members, ref] }
  existing.description = `${String(existing.description)}. Or: ${description}`
}

/**
 * Every operation with a request body answers the JSON body failures; a body whose schema requires no field may be
 * left out (an empty body reads as `{}`), so it is not `required` there (`rotate-secret`, updates).
 */
const documentBodies = (spec: Json, schemas: Json): void => {
  for (const { description, failure, name } of BODY_FAILURES) {
    schemas[name] = envelopeSchema(failure.code, description)
  }
  for (const operation of operationsOf(spec)) {
    const body = operation.requestBody
    if (!Predicate.isObject(body) || !Predicate.isObject(operation.responses)) continue
    for (const { description, name, status } of BODY_FAILURES) {
      addAnswer(operation.responses, status, { $ref: `${SCHEMAS}${name}` }, description)
    }
    const content = Predicate.isObject(body.content) ? body.content["application/json"] : undefined
    const schema = resolve(schemas, Predicate.isObject(content) ? content.schema : undefined)
    const required = schema !== undefined && Array.isArray(schema.required) ? schema.required : []
    if (required.length === 0) body.required = false
  }
}

/**
 * Parameters as the list parameters say (Lists.ts), each with its schema's description beside it, where OpenAPI
 * tools show it: a description on a reference goes around it (`allOf`), as a reference takes no keywords of its own.
 */
const documentParameters = (spec: Json): void => {
  for (const operation of operationsOf(spec)) {
    if (!Array.isArray(operation.parameters)) continue
    for (const parameter of operation.parameters) {
      if (!Predicate.isObject(parameter) || !Predicate.isObject(parameter.schema)) continue
      const listed = parameter.in === "query" && typeof parameter.name === "string"
        ? LIST_PARAMETERS[parameter.name]
        : undefined
      if (listed !== undefined) {
        const schema = listed.schema ?? parameter.schema
        parameter.schema = typeof schema.$ref === "string"
          ? { allOf: [schema], description: listed.description }
          : { ...schema, description: listed.description }
      }
      const description = Predicate.isObject(parameter.schema) ? parameter.schema.description : undefined
      if (typeof description === "string") parameter.description = description
    }
  }
}

/** Effect's placeholder for an answer without a body (`<No Content>`) as the other successes read: `Success`. */
const describeEmptySuccesses = (spec: Json): void => {
  for (const operation of operationsOf(spec)) {
    for (const response of Object.values(Predicate.isObject(operation.responses) ? operation.responses : {})) {
      if (Predicate.isObject(response) && response.description === "<No Content>") response.description = "Success"
    }
  }
}

/** HTTP authentication schemes in lower case, as RFC 7235 writes them (`bearer`); Effect writes `Bearer`. */
const lowerCaseSchemes = (components: Json): void => {
  for (
    const scheme of Object.values(Predicate.isObject(components.securitySchemes) ? components.securitySchemes : {})
  ) {
    if (Predicate.isObject(scheme) && typeof scheme.scheme === "string") scheme.scheme = scheme.scheme.toLowerCase()
  }
}

/** `anyOf` members written twice (a nullable optional field says `null` twice) said once. */
const withoutRepeatedMembers = (value: unknown): void => {
  if (Array.isArray(value)) return value.forEach(withoutRepeatedMembers)
  if (!Predicate.isObject(value)) return
  if (Array.isArray(value.anyOf)) {
    const seen = new Set<string>()
    value.anyOf = value.anyOf.filter((member) => {
      const key = JSON.stringify(member)
      return seen.has(key) ? false : (seen.add(key), true)
    })
  }
  Object.values(value).forEach(withoutRepeatedMembers)
}

/**
 * Effect's filters title themselves after their call (`minLength(1)`, `int`) and `Schema.Unknown` is titled
 * `unknown`; the keywords beside say the same to a reader, so a one-word title or call is dropped.
 */
const withoutFilterTitles = (value: unknown): void => {
  if (Array.isArray(value)) return value.forEach(withoutFilterTitles)
  if (!Predicate.isObject(value)) return
  if (typeof value.title === "string" && /^[A-Za-z]+(\(.*\))?$/.test(value.title)) {
    delete value.title
  }
  Object.values(value).forEach(withoutFilterTitles)
}

/** The document with the corrections above; `spec` is changed in place and returned. */
export const correctDocument = <Spec extends Json>(spec: Spec): Spec => {
  const components = Predicate.isObject(spec.components) ? spec.components : {}
  const schemas = Predicate.isObject(components.schemas) ? components.schemas : {}
  documentBodies(spec, schemas)
  documentParameters(spec)
  describeEmptySuccesses(spec)
  lowerCaseSchemes(components)
  withoutRepeatedMembers(spec.paths)
  withoutRepeatedMembers(schemas)
  withoutFilterTitles(spec.paths)
  withoutFilterTitles(schemas)
  return spec
}
