/**
 * The AES-256-GCM secret cipher (issue 16 item 8) and its cache of decrypted values: a cached value is only ever
 * returned for the same stored value and the same context (webhook), so the cache never lets a value copied to
 * another row, or a changed value, through.
 */
import { assert, describe, it } from "@effect/vitest"
import { SECRET_KEY_BYTES } from "@support-engine/core"
import { Option, Redacted, Result } from "effect"
import { randomBytes } from "node:crypto"
import { makeAesGcmCipher } from "../src/shared/AesGcmCipher.js"

const key = () => Redacted.make(new Uint8Array(randomBytes(SECRET_KEY_BYTES)))
const plain = (result: ReturnType<ReturnType<typeof makeAesGcmCipher>["decrypt"]>) => Result.map(result, Redacted.value)

describe("AesGcmCipher", () => {
  it("decrypts what it encrypted, the same value again when asked again", () => {
    const cipher = makeAesGcmCipher(key(), Option.none())
    const stored = cipher.encrypt(Redacted.make("whsec_one"), "webhook:a")
    assert.deepStrictEqual(plain(cipher.decrypt(stored, "webhook:a")), Result.succeed("whsec_one"))
    assert.deepStrictEqual(plain(cipher.decrypt(stored, "webhook:a")), Result.succeed("whsec_one"))
  })

  it("a value decrypted once under its webhook still fails under another (the cache is per context)", () => {
    const cipher = makeAesGcmCipher(key(), Option.none())
    const stored = cipher.encrypt(Redacted.make("whsec_one"), "webhook:a")
    assert.isTrue(Result.isSuccess(cipher.decrypt(stored, "webhook:a")))
    const moved = cipher.decrypt(stored, "webhook:b")
    assert.isTrue(Result.isFailure(moved))
    assert.match(Result.isFailure(moved) ? moved.failure.message : "", /does not authenticate/)
  })

  it("a changed value fails after the original was decrypted", () => {
    const cipher = makeAesGcmCipher(key(), Option.none())
    const stored = cipher.encrypt(Redacted.make("whsec_one"), "webhook:a")
    assert.isTrue(Result.isSuccess(cipher.decrypt(stored, "webhook:a")))
    const [version, keyId, nonce, sealed] = stored.split(":")
    const bytes = Buffer.from(sealed!, "base64url")
    bytes[0] = bytes[0]! ^ 1
    const changed = [version, keyId, nonce, bytes.toString("base64url")].join(":")
    assert.isTrue(Result.isFailure(cipher.decrypt(changed, "webhook:a")))
  })

  it("more values than the cache holds all decrypt, each to its own secret", () => {
    const cipher = makeAesGcmCipher(key(), Option.none())
    const values = Array.from({ length: 1_500 }, (_, i) => ({
      secret: `whsec_${i}`,
      stored: cipher.encrypt(Redacted.make(`whsec_${i}`), `webhook:${i}`),
      context: `webhook:${i}`
    }))
    for (const round of [1, 2]) {
      for (const { context, secret, stored } of values) {
        assert.deepStrictEqual(plain(cipher.decrypt(stored, context)), Result.succeed(secret), `round ${round}`)
      }
    }
  })

  it("the previous key decrypts; a key it does not have is named", () => {
    const oldKey = key()
    const before = makeAesGcmCipher(oldKey, Option.none())
    const stored = before.encrypt(Redacted.make("whsec_old"), "webhook:a")
    const rotated = makeAesGcmCipher(key(), Option.some(oldKey))
    assert.deepStrictEqual(plain(rotated.decrypt(stored, "webhook:a")), Result.succeed("whsec_old"))
    const without = makeAesGcmCipher(key(), Option.none()).decrypt(stored, "webhook:a")
    assert.match(Result.isFailure(without) ? without.failure.message : "", new RegExp(before.keyId))
  })
})
