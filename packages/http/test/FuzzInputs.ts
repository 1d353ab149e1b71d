/**
 * Random requests for every operation of the OpenAPI document the API publishes (issue 16 item 6): the document is
 * derived from the HttpApi definition, so an endpoint added there is fuzzed without a change here. Values follow
 * the operation's JSON Schemas often enough to pass validation and reach the business rules, and stray from them
 * (wrong types, unknown keys, ids of the other workspace, NUL, overlong strings) often enough to test refusals.
 */
import fc from "fast-check"
import { openApiDocument } from "../src/Docs.js"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type JsonSchema = Record<string, unknown>

export interface Operation {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  /** As OpenAPI writes it: `/v1/companies/{id}`. */
  readonly path: string
  readonly pathParameters: ReadonlyArray<string>
  readonly query: ReadonlyArray<{ readonly name: string; readonly schema: JsonSchema }>
  readonly headers: ReadonlyArray<string>
  readonly body: JsonSchema | undefined
}

export interface FuzzRequest {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: string | undefined
}

const document = openApiDocument() as unknown as {
  readonly paths: Record<string, Record<string, JsonSchema>>
  readonly components: { readonly schemas: Record<string, JsonSchema> }
}

const record = (value: unknown): JsonSchema => (typeof value === "object" && value !== null ? value as JsonSchema : {})

/** Every operation of the published API, `/v1` and the routes beside it. */
export const OPERATIONS: ReadonlyArray<Operation> = Object.entries(document.paths).flatMap(([path, operations]) =>
  Object.entries(operations).map(([method, operation]): Operation => {
    const parameters = Array.isArray(operation.parameters) ? operation.parameters.map(record) : []
    const content = record(record(record(operation.requestBody).content)["application/json"]).schema
    return {
      method: method.toUpperCase() as Operation["method"],
      path,
      pathParameters: parameters.filter((p) => p.in === "path").map((p) => String(p.name)),
      query: parameters.filter((p) => p.in === "query").map((p) => ({
        name: String(p.name),
        schema: record(p.schema)
      })),
      headers: parameters.filter((p) => p.in === "header").map((p) => String(p.name)),
      body: content === undefined ? undefined : record(content)
    }
  })
)

const resolve = (schema: JsonSchema): JsonSchema => {
  const ref = schema.$ref
  if (typeof ref !== "string") return schema
  const target = document.components.schemas[ref.replace("#/components/schemas/", "")]
  return { ...record(target), ...Object.fromEntries(Object.entries(schema).filter(([key]) => key !== "$ref")) }
}

/** Strings that are sometimes exactly right somewhere (ids, enum values, addresses) and hostile ones. */
export interface Pools {
  /** Ids of rows of both workspaces and ids of nothing. */
  readonly ids: ReadonlyArray<string>
  /** Any other plausible value: enum members, URLs, time stamps, locales. */
  readonly strings: ReadonlyArray<string>
}

const HOSTILE = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "../../etc/passwd",
  "%00",
  "' OR 1=1 --",
  "<script>x</script>",
  "1e15",
  "0x10",
  "-1",
  "99999999999999999999",
  "NaN",
  "2026-02-30T00:00:00Z",
  "Jan 2 2026",
  "ñandú 🚀",
  "x".repeat(70_000)
]

const anyString = (pools: Pools): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...pools.ids) },
    { weight: 3, arbitrary: fc.constantFrom(...pools.strings) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE) }
  )

const anyJson = (pools: Pools): fc.Arbitrary<Json> =>
  fc.oneof(
    { weight: 3, arbitrary: anyString(pools) },
    { weight: 1, arbitrary: fc.integer({ min: -10, max: 2_000_000 }) },
    { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, 1.5, 1e300, -0) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> }
  )

/** A value for `schema`: mostly of its shape, sometimes anything at all. */
export const valueFor = (input: JsonSchema, pools: Pools, depth = 0): fc.Arbitrary<Json> => {
  const schema = resolve(input)
  const stray = anyJson(pools)
  const shaped = ((): fc.Arbitrary<Json> | undefined => {
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as Array<Json>))
    const options = schema.anyOf ?? schema.oneOf ?? schema.allOf
    if (Array.isArray(options) && options.length > 0) {
      return fc.oneof(...options.map((option) => valueFor(record(option), pools, depth)))
    }
    if (depth > 4) return undefined
    switch (schema.type) {
      case "object": {
        const properties = Object.entries(record(schema.properties))
        const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : [])
        const entries = properties.map(([key, value]) =>
          fc.option(valueFor(record(value), pools, depth + 1).map((v) => [key, v] as const), {
            freq: required.has(key) ? 10 : 2
          })
        )
        const extra = fc.array(fc.tuple(fc.constantFrom("__proto__", "id", "workspace_id", "x"), stray), {
          maxLength: 1
        })
        return fc.tuple(fc.tuple(...entries), extra).map(([present, more]) => {
          const object: Record<string, Json> = {}
          for (const entry of [...present, ...more]) if (entry !== null) object[entry[0]] = entry[1]
          return object
        })
      }
      case "array":
        return fc.array(valueFor(record(schema.items), pools, depth + 1), { maxLength: 3 })
      case "string":
        return schema.format === "uuid" ? fc.constantFrom(...pools.ids) : anyString(pools)
      case "integer":
        return fc.integer({
          min: typeof schema.minimum === "number" ? schema.minimum - 1 : -5,
          max: typeof schema.maximum === "number" ? Math.min(schema.maximum + 1, 2 ** 31) : 5_000
        })
      case "number":
        return fc.double({ noNaN: true, noDefaultInfinity: true })
      case "boolean":
        return fc.boolean()
      case "null":
        return fc.constant(null)
      default:
        return undefined
    }
  })()
  return shaped === undefined ? stray : fc.oneof({ weight: 6, arbitrary: shaped }, { weight: 1, arbitrary: stray })
}

const asQueryValue = (value: Json): string => (typeof value === "string" ? value : JSON.stringify(value))

const header = (pools: Pools) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength: 30 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")) },
    { weight: 1, arbitrary: fc.constantFrom(...pools.ids) },
    { weight: 1, arbitrary: fc.constantFrom("*", "\"0\"", "W/\"x\"", "x".repeat(300)) }
  )

/** A random request to `operation`: its path with ids from the pools, a query, headers and a body. */
export const requestFor = (operation: Operation, pools: Pools): fc.Arbitrary<FuzzRequest> => {
  const segment = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...pools.ids) },
    { weight: 1, arbitrary: fc.constantFrom("en", "fr", "not-an-id", "%00", "..", "x".repeat(300)) }
  )
  const path = fc.tuple(...operation.pathParameters.map(() => segment)).map((values) => {
    let concrete = operation.path
    operation.pathParameters.forEach((name, i) => {
      concrete = concrete.replace(`{${name}}`, encodeURIComponent(values[i]!).replace(/%25/g, "%"))
    })
    return concrete
  })
  const query = fc.tuple(
    ...operation.query.map(({ name, schema }) =>
      fc.option(valueFor(schema, pools).map((value) => [name, asQueryValue(value)] as const), { freq: 3 })
    ),
    fc.option(fc.tuple(fc.constantFrom("page", "junk", "per_page"), anyString(pools)), { freq: 4 })
  ).map((pairs) => {
    const params = new URLSearchParams()
    for (const pair of pairs) if (pair !== null) params.append(pair[0], pair[1])
    const text = params.toString()
    return text === "" ? "" : `?${text}`
  })
  const headers = fc.record({
    requestId: fc.option(header(pools)),
    idempotency: fc.option(header(pools), { freq: operation.headers.includes("Idempotency-Key") ? 3 : 10 }),
    ifMatch: fc.option(header(pools), { freq: operation.headers.includes("If-Match") ? 3 : 10 }),
    contentType: fc.constantFrom("application/json", "application/json", "application/json", "text/plain", "")
  }).map(({ contentType, idempotency, ifMatch, requestId }) => {
    const out: Record<string, string> = {}
    if (requestId !== null) out["x-request-id"] = requestId
    if (idempotency !== null) out["idempotency-key"] = idempotency
    if (ifMatch !== null) out["if-match"] = ifMatch
    if (contentType !== "") out["content-type"] = contentType
    return out
  })
  // fetch sends no body with GET.
  const body = operation.method === "GET"
    ? fc.constant(undefined)
    : operation.body === undefined
    ? fc.option(fc.constantFrom("{}", "[]", "{\"a\":"), { freq: 8 }).map((b) => b ?? undefined)
    : fc.oneof(
      { weight: 12, arbitrary: valueFor(operation.body, pools).map((value) => JSON.stringify(value)) },
      { weight: 1, arbitrary: fc.constantFrom("", "{", "null", "[[[[[[", "{\"a\":1,}", "\u0000") }
    )
  return fc.record({ path, query, headers, body }).map((parts) => ({
    method: operation.method,
    path: `${parts.path}${parts.query}`,
    headers: parts.headers,
    body: parts.body
  }))
}
