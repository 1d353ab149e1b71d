/**
 * core's `SecretCipher` on AES-256-GCM (`node:crypto`). A stored value is
 * `v1:<key id>:<nonce>:<ciphertext and tag>`, each part base64url: the version says how to read the rest, the key
 * id which key decrypts it, so values written under the previous key still decrypt and can be found and
 * re-encrypted. A fresh 96-bit random nonce per value (GCM's standard nonce size; never reused with a key in
 * practice at the number of secrets a database holds). The context (the webhook id) is the additional
 * authenticated data: a value copied to another row fails authentication.
 */
import { SECRET_KEY_BYTES, type SecretCipherShape, SecretDecryptionFailed } from "@support-engine/core"
import { Option, Redacted, Result } from "effect"
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto"

const VERSION = "v1"
const NONCE_BYTES = 12
const TAG_BYTES = 16

/**
 * 64 bits of SHA-256 over the key, base64url (11 characters). It tells keys apart and reveals nothing usable
 * about a random 256-bit key.
 */
export const keyIdOf = (key: Uint8Array): string =>
  createHash("sha256").update("support-engine secret key id\0").update(key).digest().subarray(0, 8).toString(
    "base64url"
  )

const failed = (message: string) => Result.fail(new SecretDecryptionFailed({ message }))

/**
 * Decrypted secrets kept per stored value and context, at most this many. The dispatcher decrypts a webhook's secret
 * for every delivery it claims; a fresh decipher each time was a visible share of its CPU time on a busy queue
 * (docs/performance.md, "Other choices made for speed"). A stored value has its own random nonce, so a rotated or
 * re-encrypted secret is a new entry, and the old one ages out. The process holds the key that decrypts every entry, so
 * keeping them decrypted in memory exposes nothing that memory did not already hold.
 */
const DECRYPTED_CACHE_SIZE = 1_024

/** The cipher for `current` (encrypts and decrypts) and `previous` (decrypts only). */
export const makeAesGcmCipher = (
  current: Redacted.Redacted<Uint8Array>,
  previous: Option.Option<Redacted.Redacted<Uint8Array>>
): SecretCipherShape => {
  const keys = new Map<string, Uint8Array>()
  const currentKey = Redacted.value(current)
  if (currentKey.length !== SECRET_KEY_BYTES) throw new Error(`a secret key is ${SECRET_KEY_BYTES} bytes`)
  const keyId = keyIdOf(currentKey)
  keys.set(keyId, currentKey)
  Option.map(previous, (key) => keys.set(keyIdOf(Redacted.value(key)), Redacted.value(key)))

  const parse = (stored: string) => {
    const parts = stored.split(":")
    return parts.length === 4 && parts[0] === VERSION
      ? Option.some(parts as [string, string, string, string])
      : Option.none()
  }

  const decrypted = new Map<string, Redacted.Redacted<string>>()
  const remember = (entry: string, plain: Redacted.Redacted<string>) => {
    if (decrypted.size >= DECRYPTED_CACHE_SIZE) decrypted.delete(decrypted.keys().next().value!)
    decrypted.set(entry, plain)
    return plain
  }

  return {
    keyId,
    keyIds: [...keys.keys()],
    encrypt: (plain, context) => {
      const nonce = randomBytes(NONCE_BYTES)
      const cipher = createCipheriv("aes-256-gcm", currentKey, nonce, { authTagLength: TAG_BYTES })
      cipher.setAAD(Buffer.from(context, "utf8"))
      const body = Buffer.concat([cipher.update(Redacted.value(plain), "utf8"), cipher.final(), cipher.getAuthTag()])
      return `${VERSION}:${keyId}:${nonce.toString("base64url")}:${body.toString("base64url")}`
    },
    decrypt: (stored, context) => {
      const entry = `${context}\n${stored}`
      const known = decrypted.get(entry)
      if (known !== undefined) return Result.succeed(known)
      const parts = parse(stored)
      if (Option.isNone(parts)) {
        return failed("The stored webhook secret is not in an encrypted form this version reads.")
      }
      const [, id, nonceText, bodyText] = parts.value
      const key = keys.get(id)
      if (key === undefined) {
        return failed(
          `The stored webhook secret was encrypted with key ${id}, which is neither SUPPORT_SECRET_KEY nor ` +
            "SUPPORT_SECRET_KEY_PREVIOUS."
        )
      }
      const nonce = Buffer.from(nonceText, "base64url")
      const body = Buffer.from(bodyText, "base64url")
      if (nonce.length !== NONCE_BYTES || body.length < TAG_BYTES) {
        return failed("The stored webhook secret is cut short.")
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_BYTES })
        decipher.setAAD(Buffer.from(context, "utf8"))
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES))
        const plain = Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()])
        return Result.succeed(remember(entry, Redacted.make(plain.toString("utf8"))))
      } catch {
        // node:crypto throws when the tag does not authenticate: the value or its context was changed.
        return failed("The stored webhook secret does not authenticate: it was changed or belongs to another webhook.")
      }
    },
    keyIdOf: (stored) => Option.map(parse(stored), (parts) => parts[1])
  }
}
