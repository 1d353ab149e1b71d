/**
 * The ability check of the Promise API, made before any input is decoded: a token without the ability gets the
 * 403 even for an invalid input or a missing record, as over HTTP. Each part of the API acts on one resource, as
 * each group of the HTTP API does; a method reads when its name says it only reads, and writes otherwise. The
 * services check again (they are the rule); this only brings the 403 first.
 */
import {
  type Access,
  type InsufficientAbility,
  type Principal,
  requireAccess,
  type Resource
} from "@support-engine/core"
import { Effect } from "effect"

/** The resource of each part of the workspace API; `null`: any token may call it. */
const RESOURCE_OF: ReadonlyMap<string, Resource | null> = new Map<string, Resource | null>([
  ["agents", "agents"],
  ["companies", "companies"],
  ["customers", "customers"],
  ["conversations", "conversations"],
  ["messages", "conversations"],
  ["training", "training"],
  ["knowledgeBase", "knowledge-base"],
  ["webhooks", "webhooks"],
  ["events", "events"],
  ["token", null]
])

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

/** Read for a method whose name says it only reads, write otherwise. */
export const accessOf = (method: string): Access => READS.has(method) ? "read" : "write"

/**
 * The check a method of the part `part` makes before it runs. A part missing from the table is a programming
 * error: it throws when the API is built rather than serving methods no ability guards.
 */
export const abilityCheck = (part: string): (method: string) => Effect.Effect<void, InsufficientAbility, Principal> => {
  const resource = RESOURCE_OF.get(part)
  if (resource === undefined) throw new Error(`The part "${part}" of the Promise API has no resource.`)
  if (resource === null) return () => Effect.void
  return (method) => Effect.asVoid(requireAccess({ resource, access: accessOf(method) }))
}
