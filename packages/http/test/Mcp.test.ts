/**
 * The MCP server over Streamable HTTP at `/mcp` (D60), driven by the official MCP TypeScript SDK's client: the
 * tools run through core under the token's principal, answer the HTTP API's JSON, fail as tool errors, and never
 * answer another workspace's ids.
 */
import { assert, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ABILITIES, type Ability } from "@support-engine/core"
import { Effect } from "effect"
import { baseUrl, raw, type Tenant, tenant, testServer, userOf } from "./Harness.js"

const READ_TOOLS = [
  "ask_agent",
  "get_article",
  "get_conversation",
  "get_customer",
  "search_conversations",
  "search_customers",
  "search_knowledge_base",
  "suggest_reply",
  "summarize_conversation"
]
const WRITE_TOOLS = ["reply_to_conversation", "update_conversation"]

const missing = "00000000-0000-4000-8000-000000000000"

interface Connected {
  readonly client: Client
  readonly transport: StreamableHTTPClientTransport
}

/** An SDK client connected to `/mcp` with `token` as its bearer token; closed with the test's scope. */
const connect = (token: string) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.acquireRelease(
      Effect.promise(async (): Promise<Connected> => {
        const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } }
        })
        const client = new Client({ name: "support-engine-test", version: "1.0.0" })
        await client.connect(transport)
        return { client, transport }
      }),
      ({ client }) => Effect.promise(() => client.close())
    ))

interface ToolText {
  readonly isError: boolean
  readonly text: string
  readonly structured: unknown
}

/** Calls `name` and returns its text item, its error flag and its structured content. */
const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(async (): Promise<ToolText> => {
    const result = await client.callTool({ name, arguments: args })
    const content = result.content as Array<{ type: string; text: string }>
    assert.strictEqual(content.length, 1)
    assert.strictEqual(content[0]!.type, "text")
    return { isError: result.isError === true, text: content[0]!.text, structured: result.structuredContent }
  })

/** A successful call's structured content, which its text holds as JSON too. */
const success = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.map(call(client, name, args), (result) => {
    assert.isFalse(result.isError, result.text)
    assert.deepStrictEqual(JSON.parse(result.text), result.structured)
    return result.structured as Record<string, unknown> & { readonly data?: Array<{ readonly id: string }> }
  })

/** What the HTTP API answers for a GET of `path`. */
const httpGet = (owner: Tenant, path: string) =>
  Effect.map(raw("GET", path, { token: owner.token }), (response) => {
    assert.strictEqual(response.status, 200, response.text)
    return response.body
  })

/** A workspace with one of everything the tools read. */
const fixtures = (owner: Tenant) =>
  Effect.gen(function*() {
    const { client } = owner
    const user = yield* userOf(owner)
    const customer = yield* client.customers.create({
      payload: { email: "grace@example.test", first_name: "Grace", locale: "en" }
    })
    const conversation = yield* client.conversations.create({
      payload: { customer_id: customer.id, subject: "Refund for a broken kettle" }
    })
    for (const content of ["My kettle arrived broken.", "Can I get a refund?"]) {
      yield* client.messages.create({
        params: { id: conversation.id },
        payload: { sender_type: "customer", sender_id: customer.id, content }
      })
    }
    const article = yield* client.kb.create({
      payload: {
        status: "published",
        translations: [
          { locale: "en", title: "Refunds", content: "Refunds for broken items take five days." },
          { locale: "de", title: "Erstattungen", content: "Erstattungen dauern fünf Tage." }
        ]
      }
    })
    const draft = yield* client.kb.create({
      payload: { translations: [{ locale: "en", title: "Refunds draft", content: "Refunds unpublished." }] }
    })
    const agent = yield* client.agents.create({ payload: { name: "Helper" } })
    return { user, customer, conversation, article, draft, agent }
  }).pipe(Effect.orDie)

layer(testServer("mcp"), { excludeTestServices: true })("MCP over Streamable HTTP", (it) => {
  it.effect("D60: initialize answers as support-engine on protocol 2025-06-18 and lists tools per ability", () =>
    Effect.gen(function*() {
      const writer = yield* tenant(["external-api:write"])
      const reader = yield* tenant(["external-api:read"])
      const { client, transport } = yield* connect(writer.token)
      assert.strictEqual(client.getServerVersion()?.name, "support-engine")
      assert.strictEqual(transport.protocolVersion, "2025-06-18")
      assert.isDefined(client.getServerCapabilities()?.tools)

      const all = yield* Effect.promise(() => client.listTools())
      assert.deepStrictEqual(all.tools.map((t) => t.name).sort(), [...READ_TOOLS, ...WRITE_TOOLS].sort())
      for (const tool of all.tools) {
        assert.isString(tool.description)
        assert.strictEqual(tool.inputSchema.type, "object")
        assert.strictEqual(tool.annotations?.readOnlyHint, READ_TOOLS.includes(tool.name), tool.name)
        assert.isDefined(tool.outputSchema, tool.name)
      }

      const readOnly = yield* connect(reader.token)
      const listed = yield* Effect.promise(() => readOnly.client.listTools())
      assert.deepStrictEqual(listed.tools.map((t) => t.name).sort(), READ_TOOLS)
      // A tool the token may not call is not there at all, and the core service would refuse it anyway.
      const hidden = yield* Effect.promise(() =>
        readOnly.client.callTool({
          name: "update_conversation",
          arguments: { conversation_id: missing, status: "closed" }
        }).then(() => "called", (error: Error) => error.message)
      )
      assert.include(hidden, "not found")
    }))

  it.effect("D58, D60: each ability lists exactly the tools of its resource (write includes read)", () =>
    Effect.gen(function*() {
      const conversationsRead = ["get_conversation", "search_conversations", "suggest_reply", "summarize_conversation"]
      const expected: Record<Ability, ReadonlyArray<string>> = {
        "external-api:read": READ_TOOLS,
        "external-api:write": [...READ_TOOLS, ...WRITE_TOOLS],
        "agents:read": ["ask_agent"],
        "agents:write": ["ask_agent"],
        "customers:read": ["get_customer", "search_customers"],
        "customers:write": ["get_customer", "search_customers"],
        "companies:read": [],
        "companies:write": [],
        "conversations:read": conversationsRead,
        "conversations:write": [...conversationsRead, ...WRITE_TOOLS],
        "training:read": [],
        "training:write": [],
        "knowledge-base:read": ["get_article", "search_knowledge_base"],
        "knowledge-base:write": ["get_article", "search_knowledge_base"],
        "webhooks:read": [],
        "webhooks:write": [],
        "events:read": []
      }
      for (const ability of ABILITIES) {
        const holder = yield* tenant([ability])
        const { client } = yield* connect(holder.token)
        const listed = yield* Effect.promise(() => client.listTools())
        assert.deepStrictEqual(listed.tools.map((t) => t.name).sort(), [...expected[ability]].sort(), ability)
      }
    }))

  it.effect("D60: every tool once, each answering the JSON the HTTP API answers", () =>
    Effect.gen(function*() {
      const owner = yield* tenant(["external-api:write"])
      const f = yield* fixtures(owner)
      const { client } = yield* connect(owner.token)

      const found = yield* success(client, "search_conversations", { query: "kettle", status: "open", limit: 5 })
      assert.deepStrictEqual(found.data!.map((c) => c.id), [f.conversation.id])
      const listed = (yield* httpGet(owner, "/v1/conversations?q=kettle&status=open&per_page=5")) as {
        data: unknown
        meta: Record<string, unknown>
      }
      assert.deepStrictEqual(found.data, listed.data)
      assert.strictEqual((found.meta as { total: number }).total, 1)

      const conversation = yield* success(client, "get_conversation", { conversation_id: f.conversation.id })
      const messages = conversation.messages as Array<{ content: string }>
      assert.deepStrictEqual(messages.map((m) => m.content), ["My kettle arrived broken.", "Can I get a refund?"])
      const { messages: _, ...fields } = conversation
      assert.deepStrictEqual(fields, yield* httpGet(owner, `/v1/conversations/${f.conversation.id}`))

      const reply = yield* success(client, "reply_to_conversation", {
        conversation_id: f.conversation.id,
        user_id: f.user.id,
        content: "Sorry about that: your refund is on its way."
      })
      assert.strictEqual(reply.sender_type, "user")
      assert.strictEqual(reply.sender_id, f.user.id)
      assert.strictEqual(reply.is_internal, false)
      const note = yield* success(client, "reply_to_conversation", {
        conversation_id: f.conversation.id,
        user_id: f.user.id,
        content: "Refund approved by the team lead.",
        internal: true
      })
      assert.strictEqual(note.is_internal, true)

      const updated = yield* success(client, "update_conversation", {
        conversation_id: f.conversation.id,
        priority: "high",
        tags: ["refund"],
        assignee_id: f.user.id,
        assignee_type: "user"
      })
      assert.strictEqual(updated.priority, "high")
      assert.deepStrictEqual(updated.tags, ["refund"])
      assert.deepStrictEqual(updated, yield* httpGet(owner, `/v1/conversations/${f.conversation.id}`))
      const closed = yield* success(client, "update_conversation", {
        conversation_id: f.conversation.id,
        status: "closed"
      })
      assert.strictEqual(closed.status, "closed")

      // The writes went through core: their events are recorded, with the token as the actor.
      const events = (yield* httpGet(owner, "/v1/events?per_page=100")) as {
        data: Array<{ event: string; actor: { type: string } }>
      }
      assert.includeMembers(events.data.map((e) => e.event), [
        "conversation.user.message.created",
        "conversation.priority.updated",
        "conversation.status.updated"
      ])
      assert.isTrue(events.data.every((e) => e.actor.type === "api_token"))

      const customers = yield* success(client, "search_customers", { query: "grace" })
      assert.deepStrictEqual(customers.data!.map((c) => c.id), [f.customer.id])
      const customer = yield* success(client, "get_customer", { customer_id: f.customer.id })
      assert.deepStrictEqual(customer, yield* httpGet(owner, `/v1/customers/${f.customer.id}`))

      const articles = yield* success(client, "search_knowledge_base", { query: "refunds" })
      assert.deepStrictEqual(articles.data!.map((a) => a.id), [f.article.id])
      const german = yield* success(client, "search_knowledge_base", { query: "erstattungen", locale: "de" })
      const translations = (german.data![0] as unknown as { translations: Array<{ locale: string }> }).translations
      assert.deepStrictEqual(translations.map((t) => t.locale), ["de"])
      const article = yield* success(client, "get_article", { article_id: f.article.id })
      assert.deepStrictEqual(article, yield* httpGet(owner, `/v1/kb-articles/${f.article.id}`))

      const answer = yield* success(client, "ask_agent", {
        agent_id: f.agent.id,
        question: "How long do refunds take?",
        channel: "chat"
      })
      const asked = yield* raw("POST", `/v1/agents/${f.agent.id}/ask`, {
        token: owner.token,
        json: { question: "How long do refunds take?", channel: "chat" }
      })
      assert.deepStrictEqual(answer, asked.body)

      // The copilot (D61) answers what its HTTP endpoints answer; the local model is deterministic.
      const suggested = yield* success(client, "suggest_reply", {
        conversation_id: f.conversation.id,
        agent_id: f.agent.id
      })
      const suggestedOverHttp = yield* raw("POST", `/v1/conversations/${f.conversation.id}/suggest-reply`, {
        token: owner.token,
        json: { agent_id: f.agent.id }
      })
      assert.strictEqual(suggestedOverHttp.status, 200, suggestedOverHttp.text)
      assert.deepStrictEqual(suggested, suggestedOverHttp.body)
      assert.property(suggested, "citations")
      const summary = yield* success(client, "summarize_conversation", {
        conversation_id: f.conversation.id,
        agent_id: f.agent.id
      })
      const summaryOverHttp = yield* raw("POST", `/v1/conversations/${f.conversation.id}/summarize`, {
        token: owner.token,
        json: { agent_id: f.agent.id }
      })
      assert.deepStrictEqual(summary, summaryOverHttp.body)
      assert.include(summary.summary as string, "kettle")
    }))

  it.effect("D60: failures are tool results with isError and the error's code and message", () =>
    Effect.gen(function*() {
      const owner = yield* tenant(["external-api:write"])
      const f = yield* fixtures(owner)
      const { client } = yield* connect(owner.token)

      const notFound = yield* call(client, "get_conversation", { conversation_id: missing })
      assert.isTrue(notFound.isError)
      assert.strictEqual(notFound.text, "RESOURCE_NOT_FOUND: Conversation not found.")
      assert.isUndefined(notFound.structured)

      const draft = yield* call(client, "get_article", { article_id: f.draft.id })
      assert.strictEqual(draft.text, "RESOURCE_NOT_FOUND: Article not found.")

      const sender = yield* call(client, "reply_to_conversation", {
        conversation_id: f.conversation.id,
        user_id: missing,
        content: "Hello"
      })
      assert.isTrue(sender.isError)
      assert.match(sender.text, /^INVALID_SENDER: /)

      const assignee = yield* call(client, "update_conversation", {
        conversation_id: f.conversation.id,
        assignee_id: missing,
        assignee_type: "user"
      })
      assert.isTrue(assignee.isError)
      assert.match(assignee.text, /^INVALID_ASSIGNEE/)

      // Arguments the input schema refuses are tool errors too, with the field messages of the HTTP API's 422.
      const invalid = yield* call(client, "search_conversations", { limit: 500, status: "pending" })
      assert.isTrue(invalid.isError)
      assert.strictEqual(
        invalid.text,
        "VALIDATION_ERROR: The given data was invalid. status: must be one of: open, closed; limit: must be between 1 and 50"
      )
      const noId = yield* call(client, "get_conversation", { conversation_id: "nope" })
      assert.strictEqual(noId.text, "VALIDATION_ERROR: The given data was invalid. conversation_id: must be a UUID")
    }))

  it.effect("D60: published articles are resources support://articles/{id} and support://articles/{id}/{locale}", () =>
    Effect.gen(function*() {
      const owner = yield* tenant(["external-api:write"])
      const reader = yield* tenant(["external-api:read"])
      const f = yield* fixtures(owner)
      const { client } = yield* connect(owner.token)

      const templates = yield* Effect.promise(() => client.listResourceTemplates())
      assert.deepStrictEqual(templates.resourceTemplates.map((t) => t.uriTemplate).sort(), [
        "support://articles/{id}",
        "support://articles/{id}/{locale}"
      ])
      const read = (uri: string, on = client) =>
        Effect.promise(() =>
          on.readResource({ uri }).then(
            (result) => result.contents[0] as { uri: string; mimeType: string; text: string },
            (error: Error) => error.message
          )
        )
      const whole = yield* read(`support://articles/${f.article.id}`)
      assert.isObject(whole)
      if (typeof whole === "string") return
      assert.strictEqual(whole.mimeType, "application/json")
      assert.deepStrictEqual(JSON.parse(whole.text), yield* httpGet(owner, `/v1/kb-articles/${f.article.id}`))
      const german = yield* read(`support://articles/${f.article.id}/de`)
      if (typeof german === "string") return assert.fail(german)
      const translations = (JSON.parse(german.text) as { translations: Array<{ title: string }> }).translations
      assert.deepStrictEqual(translations.map((t) => t.title), ["Erstattungen"])

      assert.include(yield* read(`support://articles/${f.draft.id}`), "RESOURCE_NOT_FOUND: Article not found.")
      // Another workspace's token, even one that may read, is answered as for a missing article.
      const other = yield* connect(reader.token)
      assert.include(yield* read(`support://articles/${f.article.id}`, other.client), "RESOURCE_NOT_FOUND")
    }))

  it.effect("D11, D60: another workspace's ids are never answered", () =>
    Effect.gen(function*() {
      const owner = yield* tenant(["external-api:write"])
      const stranger = yield* tenant(["external-api:write"])
      const f = yield* fixtures(owner)
      const { client } = yield* connect(stranger.token)

      const calls: Array<[string, Record<string, unknown>]> = [
        ["get_conversation", { conversation_id: f.conversation.id }],
        ["reply_to_conversation", { conversation_id: f.conversation.id, user_id: f.user.id, content: "Hi" }],
        ["update_conversation", { conversation_id: f.conversation.id, status: "closed" }],
        ["get_customer", { customer_id: f.customer.id }],
        ["get_article", { article_id: f.article.id }],
        ["ask_agent", { agent_id: f.agent.id, question: "Refunds?", channel: "chat" }],
        ["suggest_reply", { conversation_id: f.conversation.id, agent_id: f.agent.id }],
        ["summarize_conversation", { conversation_id: f.conversation.id, agent_id: f.agent.id }]
      ]
      for (const [name, args] of calls) {
        const result = yield* call(client, name, args)
        assert.isTrue(result.isError, name)
        assert.match(result.text, /^RESOURCE_NOT_FOUND: \w+ not found\.$/, name)
      }
      for (
        const [name, args] of [
          ["search_conversations", { query: "kettle" }],
          ["search_customers", { query: "grace" }],
          ["search_knowledge_base", { query: "refunds" }]
        ] as const
      ) {
        const found = yield* success(client, name, args)
        assert.deepStrictEqual(found.data, [], name)
      }
      // Nothing changed for the owner.
      const conversation = (yield* httpGet(owner, `/v1/conversations/${f.conversation.id}`)) as { status: string }
      assert.strictEqual(conversation.status, "open")
    }))

  it.effect("D60: a request without a valid bearer token is an HTTP 401 with the API's error body", () =>
    Effect.gen(function*() {
      const initialize = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } }
      }
      const headers = { accept: "application/json, text/event-stream" }
      const none = yield* raw("POST", "/mcp", { json: initialize, headers })
      assert.strictEqual(none.status, 401)
      assert.deepStrictEqual(none.body, {
        error: "Unauthenticated: the request has no Authorization header; send `Authorization: Bearer <token>`.",
        code: "UNAUTHENTICATED",
        errors: null
      })
      assert.strictEqual(none.headers.get("www-authenticate"), "Bearer")
      const wrong = yield* raw("POST", "/mcp", { json: initialize, headers, token: `${missing}|nope` })
      assert.strictEqual(wrong.status, 401)
      assert.strictEqual((wrong.body as { code: string }).code, "UNAUTHENTICATED")
      assert.isNotNull(wrong.headers.get("x-request-id"))

      const owner = yield* tenant(["external-api:read"])
      const ok = yield* raw("POST", "/mcp", { json: initialize, headers, token: owner.token })
      assert.strictEqual(ok.status, 200, ok.text)
      assert.strictEqual(ok.headers.get("mcp-protocol-version"), "2025-06-18")
      assert.isNotNull(ok.headers.get("ratelimit"))
      // An older version the library implements is answered with that version; a newer one with 2025-06-18.
      for (const [offered, answered] of [["2025-03-26", "2025-03-26"], ["2025-11-25", "2025-06-18"]]) {
        const older = yield* raw("POST", "/mcp", {
          json: { ...initialize, params: { ...initialize.params, protocolVersion: offered } },
          headers,
          token: owner.token
        })
        assert.strictEqual(older.status, 200, older.text)
        assert.strictEqual((older.body as { result: { protocolVersion: string } }).result.protocolVersion, answered)
      }
    }))

  it.effect("D60: a session ends with DELETE /mcp; GET /mcp opens no stream", () =>
    Effect.gen(function*() {
      const owner = yield* tenant(["external-api:read"])
      const { transport } = yield* connect(owner.token)
      const session = transport.sessionId
      assert.isString(session)
      const headers = { accept: "application/json, text/event-stream", "mcp-session-id": session! }
      const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }
      assert.strictEqual((yield* raw("POST", "/mcp", { json: list, headers, token: owner.token })).status, 200)
      assert.strictEqual((yield* raw("GET", "/mcp", { headers, token: owner.token })).status, 405)
      yield* Effect.promise(() => transport.terminateSession())
      assert.strictEqual((yield* raw("POST", "/mcp", { json: list, headers, token: owner.token })).status, 404)
    }))

  it.effect("D60: a browser Origin other than the server's own is refused", () =>
    Effect.gen(function*() {
      const owner = yield* tenant(["external-api:read"])
      const base = yield* baseUrl
      const initialize = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "page", version: "1" } }
      }
      const send = (origin: string) =>
        raw("POST", "/mcp", {
          json: initialize,
          token: owner.token,
          headers: { accept: "application/json, text/event-stream", origin }
        })
      assert.strictEqual((yield* send("https://evil.example")).status, 403)
      assert.strictEqual((yield* send(new URL(base).origin)).status, 200)
    }))
})
