/**
 * Ids and secrets come from this service (D4, D5), never from `crypto.randomUUID()` at call sites,
 * so a test can make them deterministic.
 */
import { Clock, Effect, Layer, Random } from "effect"
import { randomBytes } from "node:crypto"

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex")

/** UUIDv7: 48-bit Unix milliseconds, version 7, variant 10, 74 random bits. Ids sort by creation time. */
export const uuidV7 = (millis: number, random: Uint8Array): string => {
  const bytes = new Uint8Array(16)
  let ms = millis
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256
    ms = Math.floor(ms / 256)
  }
  bytes.set(random.subarray(0, 10), 6)
  bytes[6] = (bytes[6]! & 0x0f) | 0x70
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const h = hex(bytes)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

export class IdGenerator extends Effect.Service<IdGenerator>()("@support-engine/core/IdGenerator", {
  succeed: {
    /** A new UUIDv7 whose time part comes from Effect's `Clock`. */
    uuid: Effect.map(Clock.currentTimeMillis, (ms) => uuidV7(ms, randomBytes(10))),
    /** Cryptographically random bytes, for token values and webhook secrets. */
    secret: (size: number) => Effect.sync(() => new Uint8Array(randomBytes(size)))
  }
}) {
  /**
   * Ids and secrets drawn from Effect's `Random` (seedable with `TestRandom`): for tests and simulations only,
   * since a PRNG is no source for real secrets.
   */
  static readonly Deterministic: Layer.Layer<IdGenerator> = Layer.succeed(
    IdGenerator,
    IdGenerator.make({
      uuid: Effect.gen(function*() {
        const ms = yield* Clock.currentTimeMillis
        const random = new Uint8Array(10)
        for (let i = 0; i < 10; i++) random[i] = yield* Random.nextIntBetween(0, 256)
        return uuidV7(ms, random)
      }),
      secret: (size) =>
        Effect.gen(function*() {
          const bytes = new Uint8Array(size)
          for (let i = 0; i < size; i++) bytes[i] = yield* Random.nextIntBetween(0, 256)
          return bytes
        })
    })
  )
}
