/**
 * A short session of an MCP client against a running server (`pnpm start`), with the official MCP TypeScript SDK over
 * Streamable HTTP: it files a customer's conversation through the HTTP API, then triages it through the MCP tools the
 * way an assistant would, printing every call and answer. docs/mcp.md shows its output.
 *
 *   SUPPORT_TOKEN='<token>' node packages/http/scripts/mcp-client.mjs [http://127.0.0.1:8080]
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"

const base = process.argv[2] ?? "http://127.0.0.1:8080"
const token = process.env.SUPPORT_TOKEN
if (token === undefined || token === "") {
  process.stderr.write("Set SUPPORT_TOKEN to a token `pnpm start` printed.\n")
  process.exit(1)
}
const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" }

/** A POST to the HTTP API: the conversation an assistant is then asked to triage. */
const post = async (path, body) => {
  const response = await fetch(`${base}/v1${path}`, { method: "POST", headers, body: JSON.stringify(body) })
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`)
  return response.json()
}

const stamp = Date.now().toString(36)
const customer = await post("/customers", { email: `grace.${stamp}@example.test`, first_name: "Grace", locale: "en" })
const conversation = await post("/conversations", { customer_id: customer.id, subject: "Kettle arrived broken" })
await post(`/conversations/${conversation.id}/messages`, {
  sender_type: "customer",
  sender_id: customer.id,
  content: "My kettle arrived broken. Can I get a refund?"
})
await post("/kb-articles", {
  status: "published",
  translations: [{ locale: "en", title: "Refunds", content: "Refunds for items that arrive broken take five days." }]
})

const show = (value) => {
  const text = JSON.stringify(value, null, 2)
  return text.length > 1200 ? `${text.slice(0, 1200)}\n  ... (${text.length} characters)` : text
}

const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } })
const client = new Client({ name: "mcp-client.mjs", version: "1.0.0" })
await client.connect(transport)
console.log(
  `# initialize -> ${client.getServerVersion().name} ${client.getServerVersion().version}, ` +
    `protocol ${transport.protocolVersion}`
)

const { tools } = await client.listTools()
console.log(`# tools/list -> ${tools.length} tools`)
for (const tool of tools) {
  console.log(`  ${tool.name}${tool.annotations?.readOnlyHint ? " (read-only)" : ""}`)
}

const call = async (name, args) => {
  console.log(`\n# tools/call ${name} ${JSON.stringify(args)}`)
  const result = await client.callTool({ name, arguments: args })
  console.log(result.isError ? `isError: ${result.content[0].text}` : show(result.structuredContent))
  return result.structuredContent
}

const found = await call("search_conversations", { status: "open", limit: 3 })
const id = found.data[0].id
await call("get_conversation", { conversation_id: id })
await call("search_knowledge_base", { query: "refund broken", limit: 1 })
await call("update_conversation", { conversation_id: id, priority: "high", tags: ["refund", "damaged-item"] })
await call("get_conversation", { conversation_id: "00000000-0000-4000-8000-000000000000" })

await client.close()
