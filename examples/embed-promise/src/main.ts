/**
 * A plain TypeScript host using support-engine in-process: no Effect in sight.
 * Run it with `pnpm start` in this folder (or `pnpm --filter @support-engine/example-embed-promise start`).
 * Set SUPPORT_DATABASE_URL to use another database; the default is an in-memory SQLite database.
 */
import { createSupportEngine } from "@support-engine/engine"

const engine = createSupportEngine({ databaseUrl: process.env["SUPPORT_DATABASE_URL"] ?? "file::memory:" })

try {
  // Provisioning: a workspace and a token, as the CLI would do.
  const workspace = await engine.workspaces.create({ name: "Acme Support" })
  const issued = await engine.tokens.create({
    workspace_id: workspace.id,
    name: "embed-example",
    abilities: ["external-api:write"]
  })

  // Everything below runs with exactly the checks of the HTTP API for that token.
  const api = await engine.withToken(issued.token)
  const customer = await api.customers.create({ email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" })
  const conversation = await api.conversations.create({ customer_id: customer.id, subject: "Cannot log in" })
  await api.messages.create(conversation.id, {
    sender_type: "customer",
    sender_id: customer.id,
    content: "Hello, I cannot log in since this morning."
  })

  // Bad input is rejected with the engine's typed error, as a 4xx would be over HTTP.
  await api.customers.create({ email: "ADA@example.com" }).catch((
    error: { _tag: string; status: number; errors?: object }
  ) => console.log(`duplicate email refused: ${error._tag} ${error.status} ${JSON.stringify(error.errors)}`))

  const events = await api.events.list({ per_page: 100 })
  console.log(`recorded events (${events.meta.total}):`)
  for (const event of [...events.data].reverse()) {
    console.log(`  ${event.occurred_at}  ${event.event.padEnd(40)} actor=${event.actor.type}`)
  }
} finally {
  await engine.dispose()
}
