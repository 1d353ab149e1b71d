/**
 * `pnpm start`: the host application of server.ts on http://127.0.0.1:3000 (`PORT`, `HOST` to change), with the
 * support-engine API mounted under /v1 and its /health, /openapi.json and /docs. Ctrl-C (or SIGTERM) stops it
 * gracefully.
 *
 * By default the engine runs on a throw-away SQLite file, provisioned with a workspace and a write token printed
 * below. With `SUPPORT_DATABASE_URL` set it uses that database as it is; make tokens with `pnpm cli token create`.
 */
import { createSupportEngine } from "@support-engine/engine"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startHost } from "./server.js"

const configured = process.env["SUPPORT_DATABASE_URL"]
const scratch = configured === undefined ? mkdtempSync(join(tmpdir(), "node-http-mount-")) : undefined
const databaseUrl = configured ?? `file:${join(scratch!, "support.db")}`

let token: string | undefined
if (scratch !== undefined) {
  // Provisioning is not part of the HTTP API: done in-process, before the handler opens the same file.
  const provisioning = createSupportEngine({ databaseUrl })
  try {
    const workspace = await provisioning.workspaces.create({ name: "node-http-mount" })
    token = (await provisioning.tokens.create({
      workspace_id: workspace.id,
      name: "node-http-mount",
      abilities: ["external-api:write"]
    })).token
  } finally {
    await provisioning.dispose()
  }
}

const host = await startHost({
  databaseUrl,
  host: process.env["HOST"] ?? "127.0.0.1",
  port: Number(process.env["PORT"] ?? 3000)
})

console.log(`Host application on ${host.url}/ (its own routes: / and /status)`)
console.log(`support-engine mounted: ${host.url}/v1, ${host.url}/docs, ${host.url}/openapi.json, ${host.url}/health`)
if (token !== undefined) {
  console.log(`\nA write token for a fresh workspace:\n\n  ${token}\n`)
  console.log(`Try: curl -H "Authorization: Bearer $TOKEN" ${host.url}/v1/customers`)
}
console.log("Ctrl-C stops.")

const stop = (signal: NodeJS.Signals) => {
  console.log(`${signal}: finishing requests in flight, then closing the engine`)
  host.close().then(
    () => {
      if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true })
    },
    (error: unknown) => {
      console.error(error)
      process.exitCode = 1
    }
  )
}
process.once("SIGINT", stop)
process.once("SIGTERM", stop)
