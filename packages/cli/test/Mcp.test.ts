/**
 * `support-engine mcp` (D60) as an MCP client starts it: the built executable as a child process, driven over stdio
 * by the official MCP TypeScript SDK's client, on a SQLite file that a `serve` of the same database filled.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect, FileSystem } from "effect"
import { fileURLToPath } from "node:url"
import { cli, cliJson, fetchJson, serve } from "./Harness.js"

const TIMEOUT = 180_000
const root = fileURLToPath(new URL("../../../", import.meta.url))
const bin = `${root}packages/cli/dist/bin/support-engine.mjs`
const missing = "00000000-0000-4000-8000-000000000000"

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

/** An SDK client of `support-engine mcp` run with `env`, closed (the process ended) with the test's scope. */
const connect = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [bin, "mcp"],
        cwd: root,
        env: { PATH: process.env.PATH ?? "", ...env },
        stderr: "pipe"
      })
      const client = new Client({ name: "support-engine-test", version: "1.0.0" })
      await client.connect(transport)
      return { client, transport }
    }),
    ({ client }) => Effect.promise(() => client.close())
  )

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(async () => {
    const result = await client.callTool({ name, arguments: args })
    const text = (result.content as Array<{ text: string }>)[0]!.text
    return { isError: result.isError === true, text, structured: result.structuredContent as Record<string, unknown> }
  })

const success = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.map(call(client, name, args), (result) => {
    assert.isFalse(result.isError, `${name}: ${result.text}`)
    assert.deepStrictEqual(JSON.parse(result.text), result.structured)
    return result.structured
  })

describe("support-engine mcp (D60)", () => {
  it.live(
    "over stdio: initialize, tools per ability, every tool and resource once, errors as tool errors, no other workspace's ids",
    () =>
      Effect.gen(function*() {
        const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "support-engine-mcp-" })
        const env = { SUPPORT_DATABASE_URL: `file:${dir}/support.db` }
        const server = yield* serve(env)
        const banner = yield* server.stdout
        const workspaceId = /Created workspace "Default" \(([0-9a-f-]{36})\)/.exec(banner)![1]!
        const token = /export SUPPORT_TOKEN='([^']+)'/.exec(banner)![1]!
        const post = (path: string, body: unknown) =>
          Effect.map(
            fetchJson(`${server.baseUrl}${path}`, {
              method: "POST",
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
              body: JSON.stringify(body)
            }),
            (response) => response.body as { id: string }
          )
        const customer = yield* post("/v1/customers", { email: "grace@example.test", first_name: "Grace" })
        const conversation = yield* post("/v1/conversations", { customer_id: customer.id, subject: "Broken kettle" })
        yield* post(`/v1/conversations/${conversation.id}/messages`, {
          sender_type: "customer",
          sender_id: customer.id,
          content: "My kettle arrived broken."
        })
        const article = yield* post("/v1/kb-articles", {
          status: "published",
          translations: [{ locale: "en", title: "Refunds", content: "Refunds take five days." }]
        })
        const agent = yield* post("/v1/agents", { name: "Helper" })
        const user = (yield* cliJson(
          env,
          "user",
          "create",
          "--workspace",
          workspaceId,
          "--name",
          "Ada",
          "--email",
          "ada@example.test",
          "--json"
        )) as { id: string }
        const reader = (yield* cliJson(
          env,
          "token",
          "create",
          "--workspace",
          workspaceId,
          "--name",
          "reader",
          "--ability",
          "external-api:read",
          "--json"
        )) as { token: string }
        const other = (yield* cliJson(env, "workspace", "create", "--name", "Other", "--json")) as { id: string }
        const stranger = (yield* cliJson(
          env,
          "token",
          "create",
          "--workspace",
          other.id,
          "--name",
          "stranger",
          "--ability",
          "external-api:write",
          "--json"
        )) as { token: string }

        const { client } = yield* connect({ ...env, SUPPORT_TOKEN: token })
        assert.strictEqual(client.getServerVersion()?.name, "support-engine")
        const tools = yield* Effect.promise(() => client.listTools())
        assert.strictEqual(tools.tools.length, 11)

        const found = yield* success(client, "search_conversations", { query: "kettle" })
        assert.deepStrictEqual((found.data as Array<{ id: string }>).map((c) => c.id), [conversation.id])
        const read = yield* success(client, "get_conversation", { conversation_id: conversation.id })
        assert.strictEqual((read.messages as Array<unknown>).length, 1)
        const reply = yield* success(client, "reply_to_conversation", {
          conversation_id: conversation.id,
          user_id: user.id,
          content: "A new kettle is on its way."
        })
        assert.strictEqual(reply.sender_id, user.id)
        const updated = yield* success(client, "update_conversation", {
          conversation_id: conversation.id,
          status: "closed",
          tags: ["refund"]
        })
        assert.strictEqual(updated.status, "closed")
        // The change is the database's: the HTTP API of the server beside it reads it back.
        const viaHttp = yield* fetchJson(`${server.baseUrl}/v1/conversations/${conversation.id}`, {
          headers: { authorization: `Bearer ${token}` }
        })
        assert.deepStrictEqual(viaHttp.body, updated)
        const customers = yield* success(client, "search_customers", { query: "grace", limit: 5 })
        assert.deepStrictEqual((customers.data as Array<{ id: string }>).map((c) => c.id), [customer.id])
        assert.strictEqual((yield* success(client, "get_customer", { customer_id: customer.id })).id, customer.id)
        const articles = yield* success(client, "search_knowledge_base", { query: "refunds", locale: "en" })
        assert.deepStrictEqual((articles.data as Array<{ id: string }>).map((a) => a.id), [article.id])
        assert.strictEqual((yield* success(client, "get_article", { article_id: article.id })).id, article.id)
        const answer = yield* success(client, "ask_agent", {
          agent_id: agent.id,
          question: "How long do refunds take?",
          channel: "chat"
        })
        assert.property(answer, "citations")

        const templates = yield* Effect.promise(() => client.listResourceTemplates())
        assert.strictEqual(templates.resourceTemplates.length, 2)
        const resource = yield* Effect.promise(() =>
          client.readResource({ uri: `support://articles/${article.id}/en` })
        )
        const content = resource.contents[0] as { text: string }
        assert.strictEqual((JSON.parse(content.text) as { id: string }).id, article.id)

        const invalid = yield* call(client, "get_customer", { customer_id: "nope" })
        assert.isTrue(invalid.isError)
        assert.strictEqual(invalid.text, "VALIDATION_ERROR: The given data was invalid. customer_id: must be a UUID")
        const notFound = yield* call(client, "get_customer", { customer_id: missing })
        assert.isTrue(notFound.isError)
        assert.strictEqual(notFound.text, "RESOURCE_NOT_FOUND: Customer not found.")

        const readOnly = yield* connect({ ...env, SUPPORT_TOKEN: reader.token })
        const listed = yield* Effect.promise(() => readOnly.client.listTools())
        assert.deepStrictEqual(listed.tools.map((t) => t.name).sort(), READ_TOOLS)

        const elsewhere = yield* connect({ ...env, SUPPORT_TOKEN: stranger.token })
        for (
          const [name, args] of [
            ["get_conversation", { conversation_id: conversation.id }],
            ["get_customer", { customer_id: customer.id }],
            ["get_article", { article_id: article.id }],
            ["update_conversation", { conversation_id: conversation.id, status: "open" }]
          ] as const
        ) {
          const result = yield* call(elsewhere.client, name, args)
          assert.isTrue(result.isError, name)
          assert.match(result.text, /^RESOURCE_NOT_FOUND: /, name)
        }

        const refused = yield* cli({ ...env, SUPPORT_TOKEN: `${missing}|nope` }, "mcp")
        assert.strictEqual(refused.exitCode, 1)
        assert.include(refused.stderr, "the token was not accepted")
        assert.strictEqual(refused.stdout, "")
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)),
    TIMEOUT
  )
})
