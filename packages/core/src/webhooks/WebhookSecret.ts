/**
 * The format of a webhook signing secret: `whsec_` followed by the base64 of 32 random bytes, so 256 bits
 * of key for HMAC-SHA256. The Standard Webhooks signature is keyed with the bytes after the prefix.
 */
import { Effect, Redacted } from "effect"
import * as Base64 from "effect/encoding/Base64"
import { IdGenerator } from "../shared/IdGenerator.js"

export const SECRET_PREFIX = "whsec_"

/** Random bytes in a secret. */
export const SECRET_BYTES = 32

/** A fresh secret from the id generator's cryptographic source. */
export const newSecret: Effect.Effect<Redacted.Redacted<string>, never, IdGenerator> = Effect.flatMap(
  IdGenerator,
  (ids) => Effect.map(ids.secret(SECRET_BYTES), (bytes) => Redacted.make(`${SECRET_PREFIX}${Base64.encode(bytes)}`))
)
