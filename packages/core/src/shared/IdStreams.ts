/**
 * Id streams, for `IdGenerator.Deterministic` alone: ids that depend on which fiber draws them and how many it
 * drew before, never on the order in which concurrent fibers happen to draw. One shared sequence made the ids of the
 * request fiber, the dispatcher and the workers follow the order in which their database answers came back, which
 * on PostgreSQL varies from run to run.
 *
 * Each background loop names its stream (`withIdStream`), the simulator names one per step; a fiber inherits its
 * parent's. The production generator never reads the name, so naming costs a hosted engine one context entry per
 * loop, not per id.
 */
import { Context, Effect } from "effect"
import { createHash } from "node:crypto"

/** The stream the current fiber draws from; "main" until something names one. */
export const currentIdStream: Context.Reference<string> = Context.Reference(
  "@support-engine/core/IdStreams/currentIdStream",
  {
    defaultValue: () => "main"
  }
)

/** Runs `self` (and the fibers it forks) drawing its deterministic ids from the stream `name`. */
export const withIdStream = (name: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(self, currentIdStream, name)

/** Largest turn number an id can show within one millisecond (rand_a has 12 bits). */
const MAX_TURN = 0xfff

interface Stream {
  /** Hashes drawn so far: the next one is SHA-256(seed, name, counter). */
  counter: number
  lastMillis: number
  lastTurn: number
  /** The 10 random bytes of the last id (bytes 6-15 of the UUID before version and variant are set). */
  readonly last: Uint8Array
}

/**
 * The state of deterministic ids shared by every engine of one run: a reopened engine goes on where the killed one
 * stopped, so its ids are new ones.
 */
export interface IdStreams {
  /**
   * The random part (10 bytes) of the next UUIDv7 of `stream` at `millis`: fresh bytes when the millisecond or the
   * turn is new for the stream, else the last ones incremented (RFC 9562's monotonic method, per stream).
   */
  readonly next: (stream: string, millis: number) => Uint8Array
  /** `size` bytes of the stream, for secrets. */
  readonly bytes: (stream: string, size: number) => Uint8Array<ArrayBuffer>
  /**
   * Marks a point where the engine is quiet (the simulator calls it before each step). Ids drawn after it sort after
   * every id drawn before it, whatever their streams: the turn is the top of the random part, so within one
   * millisecond a later turn's ids are larger. Readers that go on "after the last id seen" (the event log) then
   * miss nothing a later step records in the same millisecond.
   *
   * Within the turn, the ids of `leader` (the step's own stream) sort before those of the other streams in the same
   * millisecond: what the step writes comes before what it sets off (a worker's event after the request's), as in
   * commit order, so a reader that takes them in batches by id (the dispatcher's fan-out) takes them in the same
   * order however the batches fall.
   */
  readonly nextTurn: (leader: string) => Effect.Effect<void>
}

/** Streams drawn from `seed`; the same seed and the same draws per stream give the same bytes. */
export const makeIdStreams = (seed: string | Uint8Array): IdStreams => {
  const seedBytes = typeof seed === "string" ? Buffer.from(seed, "utf8") : seed
  const streams = new Map<string, Stream>()
  let turn = 0
  let leader: string | undefined
  /** The millisecond of the last id and the turn when the first id of that millisecond was drawn. */
  let millis = -1
  let firstTurn = 0

  const streamOf = (name: string) => {
    let stream = streams.get(name)
    if (stream === undefined) {
      stream = { counter: 0, lastMillis: -1, lastTurn: -1, last: new Uint8Array(10) }
      streams.set(name, stream)
    }
    return stream
  }

  const hash = (name: string, stream: Stream) => {
    const counter = Buffer.alloc(8)
    counter.writeUInt32BE(stream.counter++, 4)
    return createHash("sha256").update(seedBytes).update("\0").update(name).update("\0").update(counter).digest()
  }

  const next = (name: string, now: number) => {
    // Draws of one millisecond all happen while the clock shows it (it moves only when the engine is quiet), so the
    // turn of its first draw is the same whichever stream draws first.
    if (now !== millis) {
      millis = now
      firstTurn = turn
    }
    const at = Math.min(MAX_TURN, turn - firstTurn)
    const stream = streamOf(name)
    const last = stream.last
    if (now > stream.lastMillis || at > stream.lastTurn) {
      last.set(hash(name, stream).subarray(0, 10))
      last[0] = (at >> 8) & 0x0f
      last[1] = at & 0xff
      // Byte 8 of the UUID: the variant (set by uuidV7), then whether the stream follows the turn's leader.
      last[2] = (last[2]! & 0x1f) | (name === leader ? 0 : 0x20)
      last[3] = last[3]! & 0x7f // headroom: the increment below never carries into the turn
      stream.lastMillis = now
      stream.lastTurn = at
      return last
    }
    // Bytes 9-15 of the UUID only: byte 8 holds the variant, bytes 6-7 the version and the turn.
    for (let i = 9; i >= 3; i--) {
      last[i] = (last[i]! + 1) & 0xff
      if (last[i] !== 0) break
    }
    return last
  }

  const bytes = (name: string, size: number) => {
    const stream = streamOf(name)
    const out = new Uint8Array(size)
    for (let filled = 0; filled < size; filled += 32) out.set(hash(name, stream).subarray(0, size - filled), filled)
    return out
  }

  const nextTurn = (name: string) =>
    Effect.sync(() => {
      turn++
      leader = name
    })

  return { next, bytes, nextTurn }
}
