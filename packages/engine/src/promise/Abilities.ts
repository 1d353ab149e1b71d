/**
 * The ability check of the Promise API, made before any input is decoded: a token without the ability gets the
 * 403 even for an invalid input or a missing record, as over HTTP (D11). Each part of the API acts on one resource,
 * as each group of the HTTP API does; a method reads when its name says it only reads, and writes otherwise. The
 * services check again (they are the rule); this only brings the 403 first.
 */
import type { Principal } from "@support-engine/core"
import { type Access, requireAccess, type Resource } from "@support-engine/core"
import { Effect } from "effect"

/** The resource of each part of the workspace API; `null`: any token may call it. */
const RESOURCE_OF: Readonly<Record<string, Resource | null>> = {
  agents: "agents",
  companies: "companies",
  customers: "customers",
  conversations: "conversations",
  messages: "conversations",
  training: "training",
  knowledgeBase: "knowledge-base",
  webhooks: "webhooks",
  events: "events",
  token: null
}

/** The methods that only read (asking an agent, a suggested reply and a summary store nothing). */
const READS: ReadonlySet<string> = new Set([
  "list",
  "get",
  "ask",
  "suggestReply",
  "summarize",
  "urlExists",
  "revisions",
  "deliveries",
  "export"
])

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype

const guard = (value: unknown, resource: Resource | null, name: string): unknown => {
  if (typeof value === "function") {
    if (resource === null) return value
    const access: Access = READS.has(name) ? "read" : "write"
    return (...args: Array<unknown>) =>
      Effect.andThen(
        requireAccess({ resource, access }),
        Effect.suspend(() => (value as (...a: Array<unknown>) => Effect.Effect<unknown, unknown, Principal>)(...args))
      )
  }
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, guard(inner, resource, key)]))
  }
  return value
}

/**
 * Every method of `api` checks its ability first. A part missing from the table is a programming error: it fails
 * here rather than serving methods no ability guards.
 */
export const checkingAbilities = <T extends Record<string, unknown>>(api: T): T =>
  Object.fromEntries(
    Object.entries(api).map(([part, value]) => {
      const resource = RESOURCE_OF[part]
      if (resource === undefined) throw new Error(`The part "${part}" of the Promise API has no resource.`)
      return [part, guard(value, resource, part)]
    })
  ) as T
