/** The Promise facade (D3b): same rules and errors as the Effect services, JSON out, tagged errors thrown. */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createSupportEngine } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "support-engine-facade-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("createSupportEngine", () => {
  it("provisions, authenticates a token and returns JSON with D6 timestamps", async () => {
    const engine = createSupportEngine({ databaseUrl: `file:${join(dir, "a.db")}` })
    try {
      const workspace = await engine.workspaces.create({ name: "Acme" })
      const issued = await engine.tokens.create({
        workspace_id: workspace.id,
        name: "host",
        abilities: ["external-api:read"]
      })
      assert.match(issued.token, /^[0-9a-f-]{36}\|[A-Za-z0-9_-]{40}$/)
      const reader = await engine.withToken(issued.token)
      const writer = await engine.workspace(workspace.id)
      const company = await writer.companies.create({ name: "Globex" })
      assert.match(company.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/)
      assert.deepStrictEqual(await reader.companies.get(company.id), company)
      const listed = await reader.companies.list({ per_page: 1 })
      assert.deepStrictEqual(listed.data, [company])
      assert.strictEqual(listed.meta.total, 1)
    } finally {
      await engine.dispose()
    }
  })

  it("runs the customer → conversation → message flow and reports its events (D3, D34)", async () => {
    const engine = createSupportEngine({ databaseUrl: `file:${join(dir, "c.db")}` })
    try {
      const workspace = await engine.workspaces.create({ name: "Acme" })
      const api = await engine.workspace(workspace.id)
      const customer = await api.customers.create({ email: "ada@example.com", first_name: "Ada" })
      const conversation = await api.conversations.create({ customer_id: customer.id, subject: "Login" })
      const message = await api.messages.create(conversation.id, {
        sender_type: "customer",
        sender_id: customer.id,
        content: "I cannot log in"
      })
      assert.strictEqual(message.conversation_id, conversation.id)
      const updated = await api.conversations.update(conversation.id, { status: "closed" })
      assert.strictEqual(updated.status, "closed")
      const events = await api.events.list({ per_page: 100 })
      assert.deepStrictEqual(events.data.map((e) => e.event).reverse(), [
        "customer.created",
        "conversation.created",
        "conversation.customer.message.created",
        "conversation.status.updated"
      ])
      const messages = await api.messages.list({ conversation_id: conversation.id })
      assert.deepStrictEqual(messages.data, [message])
      const invalid = await api.messages.create(conversation.id, {
        sender_type: "user",
        sender_id: customer.id,
        content: "x"
      })
        .then(() => null, (e: unknown) => e)
      assert.deepInclude(invalid, { _tag: "InvalidSender", status: 400, code: "INVALID_SENDER" })
    } finally {
      await engine.dispose()
    }
  })

  it("covers training data and the knowledge base with the same JSON as HTTP", async () => {
    const engine = createSupportEngine({ databaseUrl: `file:${join(dir, "d.db")}` })
    try {
      const workspace = await engine.workspaces.create({ name: "Acme" })
      const api = await engine.workspace(workspace.id)
      const [item] = await api.training.processUrls({ urls: ["https://example.com/docs/"] })
      assert.strictEqual(item!.status, "queued")
      assert.deepStrictEqual(await api.training.urlExists({ url: "https://EXAMPLE.com/docs#x" }), { exists: true })
      const invalidType = await api.training.create({ type: "pdf" }).then(() => null, (e: unknown) => e)
      assert.deepInclude(invalidType, { _tag: "InvalidType", status: 400, code: "INVALID_TYPE" })

      const article = await api.knowledgeBase.create({
        translations: [{ locale: "en", title: "Hello", content: "v1" }]
      })
      await api.knowledgeBase.putTranslation(article.id, "en", { content: "v2" })
      const revisions = await api.knowledgeBase.revisions(article.id)
      assert.strictEqual(revisions.meta.total, 1)
      const restored = await api.knowledgeBase.restore(article.id, revisions.data[0]!.id)
      assert.strictEqual(restored.translations[0]!.content, "v1")
      assert.match(restored.updated_at, /\+00:00$/)
    } finally {
      await engine.dispose()
    }
  })

  it("an auto_reply agent answers a customer message in process, with citations, as over HTTP (D3, D53)", async () => {
    const engine = createSupportEngine({ databaseUrl: `file:${join(dir, "replies.db")}` })
    try {
      const workspace = await engine.workspaces.create({ name: "Acme" })
      const api = await engine.workspace(workspace.id)
      const agent = await api.agents.create({ name: "Bot", auto_reply: true })
      const article = await api.knowledgeBase.create({
        status: "published",
        translations: [{ locale: "en", title: "Shipping", content: "We ship worldwide." }]
      })
      const customer = await api.customers.create({ email: "ada@example.com" })
      const conversation = await api.conversations.create({
        customer_id: customer.id,
        assignee_id: agent.id,
        assignee_type: "agent"
      })
      const asked = await api.messages.create(conversation.id, {
        sender_type: "customer",
        sender_id: customer.id,
        content: "Do you ship abroad?"
      })
      assert.deepStrictEqual(asked.citations, [])
      // The engine's reply worker answers in the background; give it turns of the event loop until it has.
      let replies: ReadonlyArray<{ sender_id: string | null; content: string; citations: ReadonlyArray<unknown> }> = []
      for (let turn = 0; turn < 1000 && replies.length === 0; turn++) {
        await new Promise((resolve) => setImmediate(resolve))
        const page = await api.messages.list({ conversation_id: conversation.id, sender_type: "agent" })
        replies = page.data
      }
      assert.deepStrictEqual(replies.map((m) => [m.sender_id, m.content, m.citations]), [[
        agent.id,
        "We ship worldwide.",
        [
          { type: "kb_article", id: article.id, title: "Shipping", url: null }
        ]
      ]])
    } finally {
      await engine.dispose()
    }
  })

  it("agents.ask answers from a published article with the same JSON as HTTP; a read token may ask (D53)", async () => {
    const engine = createSupportEngine({ databaseUrl: `file:${join(dir, "ask.db")}` })
    try {
      const workspace = await engine.workspaces.create({ name: "Acme" })
      const api = await engine.workspace(workspace.id)
      const agent = await api.agents.create({ name: "Bot" })
      const article = await api.knowledgeBase.create({
        status: "published",
        translations: [{ locale: "en", title: "Shipping", content: "We ship worldwide." }]
      })
      const issued = await engine.tokens.create({
        workspace_id: workspace.id,
        name: "r",
        abilities: ["external-api:read"]
      })
      const reader = await engine.withToken(issued.token)
      assert.deepStrictEqual(await reader.agents.ask(agent.id, { question: "Do you ship abroad?", channel: "chat" }), {
        answer: "We ship worldwide.",
        citations: [{ type: "kb_article", id: article.id, title: "Shipping", url: null }],
        escalation: null
      })
      const invalid = await reader.agents.ask(agent.id, { question: "", channel: "chat" }).then(
        () => null,
        (e: unknown) => e
      )
      assert.deepInclude(invalid, { _tag: "ValidationError", status: 422 })
    } finally {
      await engine.dispose()
    }
  })

  it("D58, D11: a resource's own abilities over the Promise API; the 403 comes before validation and existence", async () => {
    const engine = createSupportEngine({ databaseUrl: `file:${join(dir, "d.db")}` })
    try {
      const workspace = await engine.workspaces.create({ name: "Acme" })
      const issued = await engine.tokens.create({
        workspace_id: workspace.id,
        name: "sync",
        abilities: ["customers:read", "events:read"]
      })
      const writer = await engine.workspace(workspace.id)
      const customer = await writer.customers.create({ email: "ada@example.com" })
      const reader = await engine.withToken(issued.token)
      assert.strictEqual((await reader.customers.get(customer.id)).id, customer.id)
      assert.strictEqual((await reader.customers.export(customer.id)).customer.id, customer.id)
      assert.strictEqual((await reader.events.list()).data.length > 0, true)
      const shown = await reader.token.get()
      assert.deepStrictEqual(shown.abilities, ["customers:read", "events:read"])
      const lacking = (e: unknown) => (e as { message: string }).message
      const invalid = await reader.customers.create({ email: 42 } as never).then(() => null, lacking)
      assert.strictEqual(invalid, "This token lacks the customers:write (or external-api:write) ability.")
      const missing = await reader.companies.get("not-a-uuid").then(() => null, lacking)
      assert.strictEqual(missing, "This token lacks the companies:read (or external-api:read) ability.")
      // Erasure (D59): customers write; the JSON of HTTP.
      const notErased = await reader.customers.erase(customer.id).then(() => null, lacking)
      assert.strictEqual(notErased, "This token lacks the customers:write (or external-api:write) ability.")
      const erased = await writer.customers.erase(customer.id)
      assert.deepStrictEqual(erased, { customer_id: customer.id, conversations: 0, messages: 0, events_redacted: 1 })
      assert.strictEqual((await writer.customers.create({ email: "ada@example.com" })).email, "ada@example.com")
    } finally {
      await engine.dispose()
    }
  })

  it("conversations.suggestReply and .summarize answer the JSON of HTTP; a read token may call them (D61)", async () => {
    const engine = createSupportEngine({ databaseUrl: `file:${join(dir, "copilot.db")}` })
    try {
      const workspace = await engine.workspaces.create({ name: "Acme" })
      const api = await engine.workspace(workspace.id)
      const agent = await api.agents.create({ name: "Helper" })
      const article = await api.knowledgeBase.create({
        status: "published",
        translations: [{ locale: "en", title: "Shipping", content: "We ship worldwide." }]
      })
      const customer = await api.customers.create({ email: "ada@example.com" })
      const conversation = await api.conversations.create({ customer_id: customer.id })
      await api.messages.create(conversation.id, {
        sender_type: "customer",
        sender_id: customer.id,
        content: "Do you ship abroad?"
      })
      const issued = await engine.tokens.create({
        workspace_id: workspace.id,
        name: "r",
        abilities: ["external-api:read"]
      })
      const reader = await engine.withToken(issued.token)
      assert.deepStrictEqual(await reader.conversations.suggestReply(conversation.id, { agent_id: agent.id }), {
        suggestion: "We ship worldwide.",
        citations: [{ type: "kb_article", id: article.id, title: "Shipping", url: null }],
        escalation: null
      })
      assert.deepStrictEqual(await reader.conversations.summarize(conversation.id, { agent_id: agent.id }), {
        summary: "Customer's request: Do you ship abroad?\nStill open: the request above."
      })
      const invalid = await reader.conversations.summarize(conversation.id, { agent_id: "nope" }).then(
        () => null,
        (e: unknown) => e
      )
      assert.deepInclude(invalid, { _tag: "ValidationError", status: 422 })
    } finally {
      await engine.dispose()
    }
  })

  it("rejects with the typed errors of the contract", async () => {
    const engine = createSupportEngine({ databaseUrl: `file:${join(dir, "b.db")}` })
    try {
      const workspace = await engine.workspaces.create({ name: "Acme" })
      const issued = await engine.tokens.create({
        workspace_id: workspace.id,
        name: "host",
        abilities: ["external-api:read"]
      })
      const reader = await engine.withToken(issued.token)
      const denied = await reader.companies.create({ name: "X" }).then(() => null, (e: unknown) => e)
      assert.deepInclude(denied, { _tag: "InsufficientAbility", status: 403, code: "INSUFFICIENT_TOKEN_ABILITY" })

      const writer = await engine.workspace(workspace.id)
      const invalid = await writer.companies.create({ name: "x".repeat(256) }).then(() => null, (e: unknown) => e)
      assert.deepInclude(invalid, { _tag: "ValidationError", status: 422 })
      assert.deepStrictEqual(Object.keys((invalid as { errors: object }).errors), ["name"])

      const badId = await writer.companies.get("not-a-uuid").then(() => null, (e: unknown) => e)
      assert.deepStrictEqual(Object.keys((badId as { errors: object }).errors), ["id"])

      const missing = await writer.companies.get("00000000-0000-7000-8000-000000000000").then(
        () => null,
        (e: unknown) => e
      )
      assert.deepInclude(missing, { _tag: "NotFound", status: 404, code: "RESOURCE_NOT_FOUND" })

      await engine.tokens.revoke(issued.id)
      const revoked = await engine.withToken(issued.token).then(() => null, (e: unknown) => e)
      assert.deepInclude(revoked, { _tag: "Unauthenticated", status: 401, message: "Unauthenticated." })
    } finally {
      await engine.dispose()
    }
  })

  it("integrator options (D52): idempotency keys, If-Match with entityTagOf, cursors and updated_since", async () => {
    const engine = createSupportEngine({ databaseUrl: `file:${join(dir, "integrators.db")}` })
    try {
      const workspace = await engine.workspaces.create({ name: "Acme" })
      const api = await engine.workspace(workspace.id)
      const first = await api.customers.create({ email: "key@example.test" }, { idempotencyKey: "k-1" })
      const retry = await api.customers.create({ email: "key@example.test" }, { idempotencyKey: "k-1" })
      assert.deepStrictEqual(retry, first)
      const reused = await api.customers.create({ email: "other@example.test" }, { idempotencyKey: "k-1" }).then(
        () => undefined,
        (error: { _tag: string }) => error._tag
      )
      assert.strictEqual(reused, "IdempotencyKeyReused")

      const conversation = await api.conversations.create({ customer_id: first.id })
      const message = { sender_type: "customer", sender_id: first.id, content: "Hello" } as const
      const sent = await api.messages.create(conversation.id, message, { idempotencyKey: "m-1" })
      assert.deepStrictEqual(await api.messages.create(conversation.id, message, { idempotencyKey: "m-1" }), sent)
      assert.strictEqual((await api.messages.list({ conversation_id: conversation.id })).meta.total, 1)

      // The message marked the customer seen (last_seen_at): the tag follows every visible change.
      assert.notStrictEqual(engine.entityTagOf(await api.customers.get(first.id)), engine.entityTagOf(first))
      const tag = engine.entityTagOf(await api.customers.get(first.id))
      const updated = await api.customers.update(first.id, { first_name: "Ada" }, { ifMatch: tag })
      assert.notStrictEqual(engine.entityTagOf(updated), tag)
      const stale = await api.customers.update(first.id, { first_name: "Lost" }, { ifMatch: tag }).then(
        () => undefined,
        (error: { _tag: string; status: number }) => [error._tag, error.status]
      )
      assert.deepStrictEqual(stale, ["PreconditionFailed", 412])

      for (let i = 0; i < 4; i++) await api.companies.create({ name: `Co ${i}` })
      const names: Array<string> = []
      let page = await api.companies.list({ per_page: 3, updated_since: "2000-01-01T00:00:00Z" })
      names.push(...page.data.map((c) => c.name))
      while (page.meta.next_cursor !== null) {
        page = await api.companies.list({ per_page: 3, cursor: page.meta.next_cursor })
        names.push(...page.data.map((c) => c.name))
      }
      assert.deepStrictEqual(names, ["Co 0", "Co 1", "Co 2", "Co 3"])
      assert.strictEqual(page.meta.total, null)
    } finally {
      await engine.dispose()
    }
  })
})
