/**
 * docs/architecture.md names modules by file; each must exist, so the page cannot drift from the code unnoticed.
 * A path (`core/src/Engine.ts`) must exist under `packages/`; a bare name (`Signer.ts`) must be some module's name.
 * The page states rules, so it cites no decision numbers.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const page = readFileSync(join(root, "docs", "architecture.md"), "utf8")

/** Every `.ts` file under `dir`, by name, skipping dependencies and build output. */
const moduleNames = (dir: string, into: Set<string> = new Set()): Set<string> => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name === "build") continue
    if (entry.isDirectory()) moduleNames(join(dir, entry.name), into)
    else if (entry.name.endsWith(".ts")) into.add(entry.name)
  }
  return into
}

// Placeholders such as `<Feature>Api.ts` name a pattern, not a module: a name right after `>` is skipped.
const mentioned = [...new Set(page.match(/(?<![\w<>./-])[\w./-]+\.ts\b/g) ?? [])]

describe("docs/architecture.md", () => {
  it("names only modules that exist", () => {
    const names = moduleNames(join(root, "packages"))
    const missing = mentioned.filter((name) =>
      name.includes("/") ? !existsSync(join(root, "packages", name)) : !names.has(name)
    )
    assert.isAbove(mentioned.length, 50)
    assert.deepStrictEqual(missing, [])
  })

  it("states rules without decision numbers", () => {
    assert.deepStrictEqual(page.match(/\bD\d+[a-z]?\b/g) ?? [], [])
  })
})
