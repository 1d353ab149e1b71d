import { assert, describe, it } from "@effect/vitest"
import { digest } from "../src/shared/Digest.js"
import { entityTagOfText } from "../src/shared/Preconditions.js"

// Entity tags (D52) and idempotency fingerprints are this digest: a client keeps an ETag across a server upgrade and
// sends it back in If-Match, and stored fingerprints are compared with new ones, so its values must never change.
// These are the values of the first version, which ran cyrb53 once per seed.
describe("digest", () => {
  it("keeps the values it has always had", () => {
    assert.strictEqual(digest(""), "0wvjl67o80326c8wzs8fs1")
    assert.strictEqual(digest("a"), "262p94epp1d1guuo3poulb")
    assert.strictEqual(digest("{\"id\":\"x\",\"name\":\"Ada Lovelace\"}"), "17j9n4nkhzj16pxtta1tvj")
    assert.strictEqual(digest("é😀\u0000"), "1a94kieg7051fi7t3w6uzz")
  })

  it("is 22 base-36 digits, and tells texts one character apart", () => {
    assert.match(digest("x".repeat(10_000)), /^[0-9a-z]{22}$/)
    assert.notStrictEqual(digest("{\"n\":1}"), digest("{\"n\":2}"))
    assert.strictEqual(entityTagOfText("a"), "\"262p94epp1d1guuo3poulb\"")
  })
})
