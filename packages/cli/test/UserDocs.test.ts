/**
 * The user-facing docs (README.md, docs/) as a new user follows them (issue 15 items 6 and 8): their steps do not
 * collide, their commands print what they promise, and every decision number they cite is stated in decisions.md.
 */
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const read = (path: string) => readFileSync(join(root, path), "utf8")
const pages = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)]

/** The `sh` blocks of a page: what a reader pastes into a shell. */
const shellBlocks = (markdown: string) =>
  Array.from(markdown.matchAll(/```sh\n([\s\S]*?)```/g), (m) => m[1]!).join("\n")
const emailsCreated = (markdown: string) =>
  new Set(Array.from(shellBlocks(markdown).matchAll(/"email":"([^"]+)"/g), (m) => m[1]!.toLowerCase()))

describe("user docs", () => {
  it("README's curl sample and the quick start create different customers: following both gives no 422", () => {
    const readme = emailsCreated(read("README.md"))
    const quickstart = emailsCreated(read("docs/quickstart.md"))
    assert.isAbove(readme.size, 0)
    assert.isAbove(quickstart.size, 0)
    assert.deepStrictEqual([...readme].filter((email) => quickstart.has(email)), [])
  })

  it("every `pnpm cli` is `pnpm -s cli`, so --json output is JSON alone on stdout", () => {
    for (const page of pages) assert.notMatch(read(page), /pnpm cli\b/, page)
  })

  it("decision numbers point to decisions.md, whose list states every one cited", () => {
    const decisions = read("docs/decisions.md")
    const listed = new Set(Array.from(decisions.matchAll(/^\| (D\d+) \| /gm), (m) => m[1]!))
    for (const page of pages) {
      const cited = Array.from(read(page).matchAll(/\bD(\d{1,2})[a-z]?\b/g), (m) => `D${m[1]}`)
      for (const number of cited) assert.isTrue(listed.has(number), `${page} cites ${number}, not in decisions.md`)
      if (cited.length > 0 && page !== "docs/decisions.md") {
        assert.match(read(page), /decisions\.md#numbered-decisions/, `${page} cites decision numbers`)
      }
    }
  })

  it("nothing links outside the repository's own files", () => {
    for (const page of pages) assert.notInclude(read(page), "../shared", page)
  })
})
