/**
 * The hand-written baseline's data layer: better-sqlite3 prepared statements on the engine's own
 * schema, doing the same work per request as the engine: SHA-256 token check (constant-time) with the
 * token's workspace, workspace scoping, the API's timestamp form, the list envelope with a counter-kept total,
 * and a conversation created with its event (the outbox row) and counters in one transaction.
 */
import Database from "better-sqlite3"
import { createHash, randomUUID, timingSafeEqual } from "node:crypto"

export interface RawPrincipal {
  readonly workspaceId: string
  readonly organizationId: string
  readonly tokenId: string
  readonly canWrite: boolean
}

interface CustomerRow {
  readonly id: string
  readonly first_name: string | null
  readonly last_name: string | null
  readonly email: string | null
  readonly phone: string | null
  readonly locale: string | null
  readonly country: string | null
  readonly company_id: string | null
  readonly avatar_url: string | null
  readonly first_seen_at: string
  readonly last_seen_at: string
  readonly created_at: string
  readonly updated_at: string
}

interface TokenRow {
  readonly token_hash: string
  readonly abilities: string
  readonly expires_at: string | null
  readonly workspace_id: string
  readonly organization_id: string
}

/** The API's timestamp form: stored `...Z` becomes `...+00:00`. */
const wire = (stored: string): string => stored.endsWith("Z") ? `${stored.slice(0, -1)}+00:00` : stored

const customerJson = (r: CustomerRow) => ({
  id: r.id,
  first_name: r.first_name,
  last_name: r.last_name,
  email: r.email,
  phone: r.phone,
  locale: r.locale,
  country: r.country,
  company_id: r.company_id,
  avatar_url: r.avatar_url,
  first_seen_at: wire(r.first_seen_at),
  last_seen_at: wire(r.last_seen_at),
  created_at: wire(r.created_at),
  updated_at: wire(r.updated_at)
})

const CUSTOMER_COLUMNS = "id, first_name, last_name, email, phone, locale, country, company_id, avatar_url, " +
  "first_seen_at, last_seen_at, created_at, updated_at"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const isUuid = (s: unknown): s is string => typeof s === "string" && UUID.test(s)

/** What the create-conversation body may hold (the subset the benchmark sends, validated like the contract). */
export interface ConversationInput {
  readonly customer_id: string
  readonly subject?: string | null | undefined
}

export type Validated =
  | { readonly _tag: "Valid"; readonly input: ConversationInput }
  | { readonly _tag: "Invalid"; readonly errors: Record<string, Array<string>> }

export type CreateResult =
  | { readonly _tag: "Created"; readonly conversation: Record<string, unknown> }
  | { readonly _tag: "Invalid"; readonly errors: Record<string, Array<string>> }

export const openRaw = (filename: string) => {
  const db = new Database(filename)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("foreign_keys = ON")
  db.pragma("busy_timeout = 5000")

  const tokenById = db.prepare<[string], TokenRow>(
    `SELECT t.token_hash, t.abilities, t.expires_at, w.id AS workspace_id, w.organization_id
     FROM api_tokens t JOIN workspaces w ON w.id = t.workspace_id WHERE t.id = ?`
  )
  const customerById = db.prepare<[string, string], CustomerRow>(
    `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE workspace_id = ? AND id = ?`
  )
  const customerPage = db.prepare<[string, number, number], CustomerRow>(
    `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE workspace_id = ?
     ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`
  )
  const counter = db.prepare<[string, string], { value: number }>(
    "SELECT value FROM workspace_counters WHERE workspace_id = ? AND name = ?"
  )
  const addCounter = db.prepare<[string, string, number, number]>(
    `INSERT INTO workspace_counters (workspace_id, name, value) VALUES (?, ?, ?)
     ON CONFLICT (workspace_id, name) DO UPDATE SET value = workspace_counters.value + ?`
  )
  const customerExists = db.prepare<[string, string], { id: string }>(
    "SELECT id FROM customers WHERE workspace_id = ? AND id = ?"
  )
  const insertConversation = db.prepare(
    `INSERT INTO conversations (id, workspace_id, channel, customer_id, agent_id, subject, status, priority,
       assignee_id, assignee_type, tags, closed_at, first_response_at, last_message_at, is_spam, spam_score,
       created_at, updated_at)
     VALUES (?, ?, 'chat', ?, NULL, ?, 'open', 'normal', NULL, NULL, '[]', NULL, NULL, NULL, 0, 0, ?, ?)`
  )
  const insertEvent = db.prepare(
    `INSERT INTO events (id, workspace_id, event, occurred_at, actor_type, actor_id, data)
     VALUES (?, ?, 'conversation.created', ?, 'api_token', ?, ?)`
  )
  // The engine's outbox looks up subscribed webhooks in the same transaction; so does the baseline.
  const subscribers = db.prepare<[string, string], { webhook_id: string }>(
    `SELECT DISTINCT t.webhook_id FROM webhook_event_types t JOIN webhooks w ON w.id = t.webhook_id
     WHERE t.workspace_id = ? AND t.event_type IN (?, '*') AND w.is_active = 1`
  )

  /** `Authorization: Bearer <id>|<secret>` to a principal, or null (401). */
  const authenticate = (header: string | undefined): RawPrincipal | null => {
    if (header === undefined || !header.startsWith("Bearer ")) return null
    const value = header.slice(7)
    const separator = value.indexOf("|")
    const id = value.slice(0, separator)
    if (separator !== 36 || !UUID.test(id)) return null
    const row = tokenById.get(id)
    if (row === undefined) return null
    const expected = Buffer.from(row.token_hash, "hex")
    const actual = createHash("sha256").update(value, "utf8").digest()
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null
    if (row.expires_at !== null && Date.parse(row.expires_at) <= Date.now()) return null
    const abilities = JSON.parse(row.abilities) as ReadonlyArray<string>
    return {
      workspaceId: row.workspace_id,
      organizationId: row.organization_id,
      tokenId: id,
      canWrite: abilities.includes("external-api:write")
    }
  }

  const getCustomer = (workspaceId: string, id: string) => {
    const row = customerById.get(workspaceId, id)
    return row === undefined ? undefined : customerJson(row)
  }

  /** The list envelope (`data`, `links`, `meta`); `url` is the absolute request URL. */
  const listCustomers = (workspaceId: string, page: number, perPage: number, url: URL) => {
    const rows = customerPage.all(workspaceId, perPage, (page - 1) * perPage)
    const total = counter.get(workspaceId, "customers")?.value ?? 0
    const lastPage = Math.max(1, Math.ceil(total / perPage))
    const link = (n: number) => {
      url.searchParams.set("page", String(n))
      return url.toString()
    }
    const from = rows.length === 0 ? null : (page - 1) * perPage + 1
    return {
      data: rows.map(customerJson),
      links: {
        first: link(1),
        last: link(lastPage),
        prev: page > 1 ? link(page - 1) : null,
        next: page < lastPage ? link(page + 1) : null
      },
      meta: {
        current_page: page,
        from,
        last_page: lastPage,
        path: `${url.origin}${url.pathname}`,
        per_page: perPage,
        to: from === null ? null : from + rows.length - 1,
        total
      }
    }
  }

  const create = db.transaction((principal: RawPrincipal, input: ConversationInput): CreateResult => {
    if (customerExists.get(principal.workspaceId, input.customer_id) === undefined) {
      return { _tag: "Invalid", errors: { customer_id: ["The selected customer_id is invalid."] } }
    }
    const id = randomUUID()
    const at = new Date().toISOString()
    const conversation = {
      id,
      channel: "chat",
      customer_id: input.customer_id,
      agent_id: null,
      subject: input.subject ?? null,
      status: "open",
      priority: "normal",
      assignee_id: null,
      assignee_type: null,
      tags: [],
      closed_at: null,
      first_response_at: null,
      last_message_at: null,
      is_spam: false,
      spam_score: 0,
      created_at: wire(at),
      updated_at: wire(at)
    }
    insertConversation.run(id, principal.workspaceId, input.customer_id, conversation.subject, at, at)
    addCounter.run(principal.workspaceId, "conversations", 1, 1)
    const data = {
      id,
      title: conversation.subject,
      status: "open",
      priority: "normal",
      channel: "chat",
      assignee_id: null,
      assignee_type: null,
      customer_id: input.customer_id,
      created_at: conversation.created_at,
      updated_at: conversation.updated_at
    }
    insertEvent.run(randomUUID(), principal.workspaceId, at, principal.tokenId, JSON.stringify(data))
    addCounter.run(principal.workspaceId, "events", 1, 1)
    subscribers.all(principal.workspaceId, "conversation.created")
    return { _tag: "Created", conversation }
  })

  /** Hand validation of the create body, as the contract asks (typed JSON, 422 per field). */
  const validateConversation = (body: unknown): Validated => {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return { _tag: "Invalid", errors: { customer_id: ["The customer_id field is required."] } }
    }
    const record = body as Record<string, unknown>
    const errors: Record<string, Array<string>> = {}
    if (!isUuid(record.customer_id)) errors.customer_id = ["The customer_id must be a valid UUID."]
    const subject = record.subject
    if (subject !== undefined && subject !== null && (typeof subject !== "string" || subject.length > 500)) {
      errors.subject = ["The subject must be a string of at most 500 characters."]
    }
    if (Object.keys(errors).length > 0) return { _tag: "Invalid", errors }
    return { _tag: "Valid", input: { customer_id: record.customer_id as string, subject: subject as string | null } }
  }

  return {
    db,
    authenticate,
    getCustomer,
    listCustomers,
    // BEGIN IMMEDIATE: a deferred transaction that reads before it writes fails at once with SQLITE_BUSY when
    // another connection wrote meanwhile; an immediate one waits for the lock (busy_timeout).
    createConversation: create.immediate,
    validateConversation,
    close: () => db.close()
  } as const
}

export type RawStore = ReturnType<typeof openRaw>
