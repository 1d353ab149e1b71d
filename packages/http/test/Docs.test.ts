/** `GET /docs`: Scalar's reference works offline and calls no third party (issue 20 item 3). */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { OFFLINE_SCALAR_OPTIONS } from "../src/Reference.js"
import { ENDPOINTS } from "./Endpoints.js"
import { raw, testServer } from "./Harness.js"

/**
 * Every Scalar host the inlined script names, and why none is reached with our options: a Scalar upgrade that
 * names a new host fails this test until someone checks what calls it.
 */
const REVIEWED_SCALAR_HOSTS: Record<string, string> = {
  "fonts.scalar.com": "withDefaultFonts: false",
  "api.scalar.com": "share upload (showToolbar: never), request proxy (no proxyUrl)",
  "proxy.scalar.com": "share upload (showToolbar: never), request proxy (no proxyUrl)",
  "registry.scalar.com": "share link text (showToolbar: never)",
  "dashboard.scalar.com": "share menu's register link (showToolbar: never)",
  "client.scalar.com": "Open API Client button (hideClientButton: true)",
  "galaxy.scalar.com": "placeholder text of OAuth fields",
  "void.scalar.com": "placeholder text of the server field",
  "www.scalar.com": "links a user may click",
  "docs.scalar.com": "links a user may click (the share menu's Docs link, showToolbar: never)",
  "guides.scalar.com": "links a user may click",
  "scalar.com": "links a user may click"
}

const page = raw("GET", "/docs").pipe(Effect.map((response) => {
  assert.strictEqual(response.status, 200)
  // Scalar's script, then the page's own script that starts it with the configuration and the document.
  const script = /<script>(\/\*\*\n \* Minified by jsDelivr[\s\S]*?)<\/script>/.exec(response.text)
  assert.isNotNull(script, "the Scalar script is inlined in the page")
  return { html: response.text.replace(script![1]!, ""), script: script![1]! }
}))

layer(testServer("docs"), { excludeTestServices: true })("GET /docs", (it) => {
  it.effect("the page outside Scalar's inlined script names no remote origin: no script, font or style to fetch", () =>
    Effect.gen(function*() {
      const { html } = yield* page
      assert.notMatch(html, /<script[^>]+src=/)
      assert.notMatch(html, /<link[^>]+href=/)
      assert.deepStrictEqual(html.match(/https?:\/\/[^\s"'<>\\]+/g) ?? [], [])
      for (const endpoint of ENDPOINTS) assert.include(html, `"${endpoint.path}"`, endpoint.path)
    }))

  it.effect("Scalar is configured without fonts, toolbar (Share), telemetry, client button or download links", () =>
    Effect.gen(function*() {
      const { html } = yield* page
      const json = /createApiReference\([^,]*, \{\s*\.\.\.(\{.*?\}),\n/.exec(html)
      assert.isNotNull(json)
      const config: unknown = JSON.parse(json![1]!)
      assert.deepInclude(config, {
        withDefaultFonts: false,
        showToolbar: "never",
        telemetry: false,
        hideClientButton: true,
        documentDownloadType: "none",
        operationTitleSource: "summary"
      })
      assert.notProperty(config, "proxyUrl")
      assert.deepInclude(config, OFFLINE_SCALAR_OPTIONS)
    }))

  it.effect("every Scalar host the inlined script names has been reviewed and is switched off or only a link", () =>
    Effect.gen(function*() {
      const { script } = yield* page
      const hosts = new Set(Array.from(script.matchAll(/https?:\/\/([a-z0-9.-]*scalar\.com)/g), (m) => m[1]!))
      assert.deepStrictEqual([...hosts].filter((host) => !(host in REVIEWED_SCALAR_HOSTS)), [])
      // The script does carry the features switched off above: the options are what keeps them silent.
      assert.include(script, "https://api.scalar.com/core/share/upload/apis")
      assert.include(script, "https://fonts.scalar.com/")
    }))
})
