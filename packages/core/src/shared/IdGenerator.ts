/**
 * Ids and secrets come from this service, never from `crypto.randomUUID()` at call sites,
 * so a test can make them deterministic.
 */
import { Clock, Context, Effect, Layer, Random } from "effect"
import { randomBytes, randomFillSync } from "node:crypto"
import { currentIdStream, type IdStreams, makeIdStreams } from "./IdStreams.js"

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

/**
 * UUIDv7 with RFC 9562's monotonic method: within one millisecond the random field of the previous id is
 * incremented, so ids from one generator strictly increase and events of the same millisecond keep their order.
 */
const monotonic = (random: (size: number) => Effect.Effect<Uint8Array>): Effect.Effect<string> => {
  let lastMillis = -1
  const last = new Uint8Array(10)
  return Effect.flatMap(Clock.currentTimeMillis, (now) => {
    if (now > lastMillis) {
      return Effect.map(random(10), (bytes) => {
        lastMillis = now
        last.set(bytes)
        last[0] = last[0]! & 0x0f // headroom: the increment below never overflows into the version bits
        return uuidV7(lastMillis, last)
      })
    }
    return Effect.sync(() => {
      for (let i = 9; i >= 0; i--) {
        if (i === 2) continue // byte 8 of the UUID holds the variant; skip it in the carry chain
        last[i] = (last[i]! + 1) & 0xff
        if (last[i] !== 0) break
      }
      return uuidV7(lastMillis, last)
    })
  })
}

const cryptoBytes = (size: number) => Effect.sync(() => new Uint8Array(randomBytes(size)))

/**
 * Random bytes for ids, cut from a pool refilled 4 KiB at a time, as the `uuid` package does: a `randomBytes` call
 * per id costs many times a slice of the pool (docs/performance.md), and every request id and created record draws
 * one. Secrets keep `randomBytes` of their own.
 */
const pooledBytes = (() => {
  const pool = Buffer.allocUnsafe(4096)
  let offset = pool.length
  return (size: number) =>
    Effect.sync(() => {
      if (offset + size > pool.length) {
        randomFillSync(pool)
        offset = 0
      }
      const bytes = new Uint8Array(pool.subarray(offset, offset + size))
      offset += size
      return bytes
    })
})()

/** The seed of a `Deterministic` generator: 32 bytes of Effect's `Random` (seedable with `Random.withSeed`). */
const seedFromRandom = Effect.gen(function*() {
  const bytes = new Uint8Array(32)
  for (let i = 0; i < bytes.length; i++) bytes[i] = yield* Random.nextIntBetween(0, 256, { halfOpen: true })
  return bytes
})

export interface IdGeneratorShape {
  /** A new UUIDv7 whose time part comes from Effect's `Clock`; increasing within this generator. */
  readonly uuid: Effect.Effect<string>
  /** Cryptographically random bytes, for token values and webhook secrets. */
  readonly secret: (size: number) => Effect.Effect<Uint8Array<ArrayBuffer>>
}

export class IdGenerator extends Context.Service<IdGenerator, IdGeneratorShape>()("@support-engine/core/IdGenerator") {
  /** The production generator: monotonic UUIDv7 and cryptographic secrets. */
  static readonly layer: Layer.Layer<IdGenerator> = Layer.sync(
    IdGenerator,
    () => IdGenerator.of({ uuid: monotonic(pooledBytes), secret: cryptoBytes })
  )

  /**
   * Ids and secrets drawn from `streams` (IdStreams.ts): each fiber's from the stream it names, so they do not
   * depend on the order in which concurrent fibers draw. Ids increase within a stream and, across streams, from one
   * turn to the next; those of two streams in the same millisecond and turn differ in their random bits. For tests
   * and simulations only, since a hash of a known seed is no source for real secrets.
   */
  static readonly fromStreams = (streams: IdStreams): Layer.Layer<IdGenerator> =>
    Layer.succeed(
      IdGenerator,
      IdGenerator.of({
        uuid: Effect.flatMap(currentIdStream, (stream) =>
          Effect.clockWith((clock) =>
            Effect.sync(() => {
              // Read with the draw, in one step: the id's time and its stream's state always agree.
              const now = clock.currentTimeMillisUnsafe()
              return uuidV7(now, streams.next(stream, now))
            })
          )),
        secret: (size) => Effect.map(currentIdStream, (stream) => streams.bytes(stream, size))
      })
    )

  /** `fromStreams` over streams seeded from Effect's `Random`: the same seeded `Random` gives the same ids. */
  static readonly Deterministic: Layer.Layer<IdGenerator> = Layer.unwrap(
    Effect.map(seedFromRandom, (seed) => IdGenerator.fromStreams(makeIdStreams(seed)))
  )
}
