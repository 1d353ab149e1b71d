/**
 * Which ability each endpoint needs, in one table: every group of the API acts on one resource, an
 * endpoint reads it when its method only reads (or it is listed as a read below) and writes it otherwise. The
 * authentication middleware, the OpenAPI document (`x-required-abilities`) and the table of docs/integrations.md
 * are all made from it, so they cannot disagree.
 */
import { abilitiesAllowing, type Ability, type Access, type Requirement, type Resource } from "@support-engine/core"

/** The resource of each group; `null`: the group needs a valid token and no ability (`GET /v1/token`). */
export const GROUP_RESOURCES: Readonly<Record<string, Resource | null>> = {
  agents: "agents",
  conversations: "conversations",
  messages: "conversations",
  customers: "customers",
  companies: "companies",
  training: "training",
  kb: "knowledge-base",
  webhooks: "webhooks",
  events: "events",
  token: null
}

/**
 * Endpoints whose method writes but which store nothing: asking an agent, and a suggested reply or a summary of a
 * conversation, only read.
 */
const READING_POSTS: ReadonlySet<string> = new Set([
  "agents.ask",
  "conversations.suggestReply",
  "conversations.summarize"
])

const READING_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * What an endpoint of a group needs, or `null` when any valid token may call it. A group missing from the table
 * is a programming error: it fails here rather than serving an endpoint no ability guards.
 */
export const requirementOf = (group: string, endpoint: string, method: string): Requirement | null => {
  const resource = GROUP_RESOURCES[group]
  if (resource === undefined) throw new Error(`The group "${group}" has no resource in the table of abilities.`)
  if (resource === null) return null
  const access: Access = READING_METHODS.has(method.toUpperCase()) || READING_POSTS.has(`${group}.${endpoint}`)
    ? "read"
    : "write"
  return { resource, access }
}

/** The abilities that allow an endpoint, narrowest first; empty when any valid token may call it. */
export const abilitiesFor = (group: string, endpoint: string, method: string): ReadonlyArray<Ability> => {
  const requirement = requirementOf(group, endpoint, method)
  return requirement === null ? [] : abilitiesAllowing(requirement)
}

type Json = Record<string, unknown>

const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** Each operation of the document, with its method and path; `operationId` is `<group>.<endpoint>`. */
const operationsOf = (spec: Json): ReadonlyArray<{ path: string; method: string; operation: Json }> =>
  Object.entries(isJson(spec.paths) ? spec.paths : {}).flatMap(([path, item]) =>
    Object.entries(isJson(item) ? item : {}).flatMap(([method, operation]) =>
      isJson(operation) && typeof operation.operationId === "string" ? [{ path, method, operation }] : []
    )
  )

const abilitiesOfOperation = (method: string, operation: Json): ReadonlyArray<Ability> => {
  const [group = "", endpoint = ""] = String(operation.operationId).split(".")
  return abilitiesFor(group, endpoint, method)
}

/** Each operation states the abilities that allow it, narrowest first (`x-required-abilities`; empty: any token). */
export const documentAbilities = (spec: Json): void => {
  for (const { method, operation } of operationsOf(spec)) {
    operation["x-required-abilities"] = abilitiesOfOperation(method, operation)
  }
}

/** The Markdown table of docs/integrations.md: each endpoint and the abilities that allow it. */
export const abilityTable = (spec: Json): string => {
  const rows = operationsOf(spec).map(({ method, operation, path }) => {
    const abilities = abilitiesOfOperation(method, operation)
    const allowed = abilities.length === 0 ? "any valid token" : abilities.map((a) => `\`${a}\``).join(", ")
    return `| \`${method.toUpperCase()} ${path}\` | ${allowed} |`
  })
  return ["| Endpoint | Abilities that allow it |", "| --- | --- |", ...rows].join("\n")
}
