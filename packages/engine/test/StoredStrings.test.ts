/**
 * D48: a string with U+0000 or a lone UTF-16 surrogate is a 422 naming the field, decided in core before any write
 * (PostgreSQL used to answer NUL with a 500; SQLite replaced lone surrogates silently), and nothing is half-written.
 * A surrogate pair (an emoji) is stored and read back as sent. Run on SQLite, and on PostgreSQL when
 * SUPPORT_TEST_PG_URL names a server (a database of its own, dropped after).
 */
import { PgClient } from "@effect/sql-pg"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createSupportEngine } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "support-engine-strings-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Refused {
  readonly status: number
  readonly errors: Record<string, ReadonlyArray<string>>
}

const refusal = (thrown: unknown): Refused => thrown as Refused

const run = async (databaseUrl: string) => {
  const engine = createSupportEngine({ databaseUrl })
  try {
    const workspace = await engine.workspaces.create({ name: "Acme" })
    const api = await engine.workspace(workspace.id)
    for (const bad of ["nul\u0000here", "lone \uD83D high", "lone \uDE00 low", "\uDE00\uD83D reversed"]) {
      const customerError = await api.customers.create({ first_name: bad }).then(() => null, refusal)
      assert.strictEqual(customerError?.status, 422, JSON.stringify(bad))
      assert.deepStrictEqual(Object.keys(customerError?.errors ?? {}), ["first_name"])
      const companyError = await api.companies.create({ name: "Globex", domain: bad }).then(() => null, refusal)
      assert.deepStrictEqual(Object.keys(companyError?.errors ?? {}), ["domain"])
    }
    assert.strictEqual((await api.customers.list({})).meta.total, 0)
    assert.strictEqual((await api.companies.list({})).meta.total, 0)
    const customer = await api.customers.create({ first_name: "Zoë 😀", last_name: "𝔘𝔫𝔦𝔠𝔬𝔡𝔢" })
    const read = await api.customers.get(customer.id)
    assert.strictEqual(read.first_name, "Zoë 😀")
    assert.strictEqual(read.last_name, "𝔘𝔫𝔦𝔠𝔬𝔡𝔢")
  } finally {
    await engine.dispose()
  }
}

const adminUrl: string | undefined = process.env["SUPPORT_TEST_PG_URL"]

const onAdmin = (admin: string, statement: string) =>
  Effect.runPromise(
    Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(admin), maxConnections: 1 })),
      Effect.scoped
    )
  )

describe("storable strings (D48)", () => {
  it("SQLite: NUL and lone surrogates are a 422 on the field, nothing written; emoji kept", () =>
    run(`file:${join(dir, "strings.db")}`))

  it.runIf(adminUrl !== undefined)(
    "PostgreSQL: NUL and lone surrogates are a 422 on the field, nothing written; emoji kept",
    async () => {
      const admin = adminUrl!
      const name = `support_engine_strings_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
      await onAdmin(admin, `CREATE DATABASE ${name}`)
      try {
        const url = new URL(admin)
        url.pathname = `/${name}`
        await run(url.toString())
      } finally {
        await onAdmin(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      }
    },
    60_000
  )
})
