/**
 * Webhook signing secrets at rest: storage keeps them encrypted under a key from configuration
 * and decrypts them only to sign. The port is here and the cipher (AES-256-GCM, `node:crypto`) is in storage: core
 * runs on any JavaScript runtime. The keys are read here, so every host validates them the same way.
 */
import { Config, Context, Effect, Option, Redacted, Result, Schema, SchemaIssue } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Hex from "effect/encoding/Hex"

/** Bytes in a key: AES-256. */
export const SECRET_KEY_BYTES = 32

/** A stored value could not be decrypted: another key, or a changed value. Never carries the value or the key. */
export class SecretDecryptionFailed extends Schema.TaggedError<SecretDecryptionFailed>()("SecretDecryptionFailed", {
  message: Schema.String
}) {}

export interface SecretCipherShape {
  /** The short, non-secret id of the key new values are encrypted with (part of every stored value). */
  readonly keyId: string
  /** The ids of every key that decrypts: the current one first, then the previous one. */
  readonly keyIds: ReadonlyArray<string>
  /** A self-describing stored form of `plain`, bound to `context` (the same context must decrypt it). */
  readonly encrypt: (plain: Redacted.Redacted<string>, context: string) => string
  /** The value `encrypt` stored under `context`, with the current or the previous key. */
  readonly decrypt: (
    stored: string,
    context: string
  ) => Result.Result<Redacted.Redacted<string>, SecretDecryptionFailed>
  /** The id of the key a stored value names, or none when it is not a value `encrypt` made (plain text). */
  readonly keyIdOf: (stored: string) => Option.Option<string>
}

/** Encrypts and decrypts webhook secrets at rest. */
export class SecretCipher
  extends Context.Service<SecretCipher, SecretCipherShape>()("@support-engine/core/SecretCipher")
{}

/** The keys from configuration: the current one, and the previous one while values are re-encrypted. */
export interface SecretKeys {
  readonly current: Option.Option<Redacted.Redacted<Uint8Array>>
  readonly previous: Option.Option<Redacted.Redacted<Uint8Array>>
}

const HEX = /^[0-9a-fA-F]{64}$/
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/

/**
 * A key as written in configuration: 64 hex digits, or base64 (standard or URL-safe) of 32 bytes. The two cannot
 * be confused: 64 characters of base64 are 48 bytes. `openssl rand -base64 32` and `openssl rand -hex 32` make one.
 */
export const parseSecretKey = (text: string): Result.Result<Uint8Array, string> => {
  const trimmed = text.trim()
  const decoded = HEX.test(trimmed)
    ? Hex.decode(trimmed)
    : BASE64.test(trimmed)
    ? Base64Url.decode(trimmed.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""))
    : Result.fail(undefined)
  return Result.isSuccess(decoded) && decoded.success.length === SECRET_KEY_BYTES
    ? Result.succeed(decoded.success)
    : Result.fail(
      `must be ${SECRET_KEY_BYTES} bytes as 64 hex digits or base64 (for example \`openssl rand -base64 32\`)`
    )
}

/** A refused value of `name`, named but not shown (it is a key). */
const invalidKey = (name: string, message: string): Config.ConfigError =>
  new Config.ConfigError(
    new Schema.SchemaError(new SchemaIssue.Pointer([name], new SchemaIssue.InvalidValue({ message })))
  )

const keyConfig = (name: string): Config.Config<Option.Option<Redacted.Redacted<Uint8Array>>> =>
  Config.option(Config.Redacted(name)).pipe(
    Config.mapEffect(Option.match({
      onNone: () => Effect.succeedNone,
      onSome: (text) =>
        Result.match(parseSecretKey(Redacted.value(text)), {
          onFailure: (message) => Effect.fail(invalidKey(name, message)),
          onSuccess: (key) => Effect.succeed(Option.some(Redacted.make(key)))
        })
    }))
  )

/** `SUPPORT_SECRET_KEY` and `SUPPORT_SECRET_KEY_PREVIOUS`, both optional here; storage decides what a missing key means. */
export const SecretKeysConfig: Config.Config<SecretKeys> = Config.all({
  current: keyConfig("SUPPORT_SECRET_KEY"),
  previous: keyConfig("SUPPORT_SECRET_KEY_PREVIOUS")
})

/** The context a webhook's secrets are bound to, so a stored value copied to another webhook does not decrypt. */
export const webhookSecretContext = (webhookId: string): string => `webhook:${webhookId}`

/** Decrypts or fails with the effect's error; for callers that map it to their own error. */
export const decryptSecret = (
  cipher: SecretCipherShape,
  stored: string,
  context: string
): Effect.Effect<Redacted.Redacted<string>, SecretDecryptionFailed> =>
  Effect.suspend(() => Effect.fromResult(cipher.decrypt(stored, context)))
