import { assert, describe, it } from "@effect/vitest"
import { normalizeUrl } from "../src/shared/UrlNormalization.js"

describe("normalizeUrl (D20)", () => {
  it("lower-cases scheme and host, drops the fragment and trailing slashes, keeps path case and query", () => {
    assert.strictEqual(normalizeUrl("HTTPS://Example.COM/Docs/#intro"), "https://example.com/Docs")
    assert.strictEqual(normalizeUrl("https://example.com/"), "https://example.com")
    assert.strictEqual(normalizeUrl("https://example.com"), "https://example.com")
    assert.strictEqual(normalizeUrl("https://example.com/a//"), "https://example.com/a")
    assert.strictEqual(normalizeUrl("http://example.com:8080/a/?q=1#x"), "http://example.com:8080/a?q=1")
    assert.strictEqual(normalizeUrl("  https://example.com/a  "), "https://example.com/a")
  })

  it("refuses what is not an absolute http(s) URL", () => {
    for (const bad of ["", "example.com", "/relative", "ftp://example.com", "javascript:alert(1)", "https://"]) {
      assert.strictEqual(normalizeUrl(bad), null, bad)
    }
  })
})
