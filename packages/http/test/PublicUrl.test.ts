/**
 * D51: list links and `meta.path` are built on `SUPPORT_PUBLIC_URL`, else on the address the server listens on;
 * never on the `Host` header, which the client chooses.
 */
import { assert, describe, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { request } from "node:http"
import { baseUrl, tenant, testServer } from "./Harness.js"

interface ListBody {
  readonly links: Record<string, string | null>
  readonly meta: { readonly path: string }
}

/** A GET with a `Host` header of the test's choosing (fetch sets its own), over loopback. */
const getWithHost = (path: string, host: string, token: string) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.callback<ListBody>((resume) => {
      const target = new URL(base)
      const req = request(
        { host: target.hostname, port: target.port, path, headers: { host, authorization: `Bearer ${token}` } },
        (res) => {
          let text = ""
          res.setEncoding("utf8")
          res.on("data", (chunk: string) => (text += chunk))
          res.on("end", () => resume(Effect.succeed(JSON.parse(text) as ListBody)))
        }
      )
      req.on("error", (error) => resume(Effect.die(error)))
      req.end()
    }))

/** Every URL of a list answer. */
const urlsOf = (
  body: ListBody
): ReadonlyArray<string> => [
  ...Object.values(body.links).filter((link): link is string => link !== null),
  body.meta.path
]

describe("public URL (D51)", () => {
  layer(testServer("public-url-default"), { excludeTestServices: true })("without SUPPORT_PUBLIC_URL", (it) => {
    it.effect("links are on the listening address whatever Host says", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        const base = yield* baseUrl
        const body = yield* getWithHost("/v1/customers?per_page=5&page=1", "attacker.example:666", token)
        assert.strictEqual(body.meta.path, `${base}/v1/customers`)
        assert.strictEqual(body.links["first"], `${base}/v1/customers?per_page=5&page=1`)
        for (const url of urlsOf(body)) assert.notInclude(url, "attacker.example")
      }))
  })

  const configured = testServer("public-url-set").pipe(
    Layer.provide(
      ConfigProvider.layer(
        ConfigProvider.fromEnvRecord({ SUPPORT_PUBLIC_URL: "https://support.example.com/api/" })
      )
    )
  )
  layer(configured, { excludeTestServices: true })("with SUPPORT_PUBLIC_URL", (it) => {
    it.effect("links and meta.path are under the configured URL, its path prefix kept", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        const body = yield* getWithHost("/v1/companies?per_page=2", "attacker.example", token)
        assert.strictEqual(body.meta.path, "https://support.example.com/api/v1/companies")
        assert.strictEqual(body.links["first"], "https://support.example.com/api/v1/companies?per_page=2&page=1")
        assert.strictEqual(body.links["last"], "https://support.example.com/api/v1/companies?per_page=2&page=1")
      }))
  })
})
