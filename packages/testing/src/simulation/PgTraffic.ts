/**
 * The engine's PostgreSQL traffic, watched on its own sockets: whether some query of the engine is still
 * waiting for its answer. `settle` (Advance.ts) calls the engine quiet only when none is, so the clock never moves
 * while a fiber waits on the network, and a run's steps see the same engine state whatever the server's timing.
 *
 * `@effect/sql-pg` pipelines: a connection may carry several queries at once, each ended by a Sync (or sent as one
 * simple Query), and the server answers each of them last with ReadyForQuery ('Z'), as it ends the start-up. A
 * connection is therefore idle exactly when it has had as many 'Z's as it sent Syncs and Queries, plus the one of
 * its start-up. Both directions are framed (a type byte, then a 32-bit length that counts itself; only the first
 * message the client sends, the start-up, has no type byte), so the messages are counted without reading the rest.
 * This asks the server nothing, and sees a query as soon as the client writes it. Plain connections only: the
 * simulator's database URL asks for no TLS.
 */
import { Socket } from "node:net"

export interface PgTraffic {
  /**
   * Makes a socket for the engine's client (storage's `clientLayer` option `pgSocket`): connected to the server of
   * the URL, watched from the start.
   */
  readonly socket: () => Socket
  /** Whether a connection is starting or a query written to one has not been answered yet. */
  readonly busy: () => boolean
}

const READY_FOR_QUERY = 0x5a
const SYNC = 0x53
const QUERY = 0x51
const HEADER = 5

/**
 * Reads a stream of framed messages chunk by chunk and calls `onType` with each message's type byte. With
 * `untypedFirst`, the first message has no type byte (a length, then the rest).
 */
const framing = (onType: (type: number) => void, untypedFirst: boolean) => {
  let header = Buffer.alloc(0)
  let skip = 0
  let untyped = untypedFirst
  return (chunk: Uint8Array) => {
    let i = 0
    while (i < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - i)
        skip -= n
        i += n
        continue
      }
      const size = untyped ? HEADER - 1 : HEADER
      const take = Math.min(size - header.length, chunk.length - i)
      header = Buffer.concat([header, chunk.subarray(i, i + take)])
      i += take
      if (header.length < size) break
      if (untyped) {
        skip = header.readUInt32BE(0) - 4
        untyped = false
      } else {
        skip = header.readUInt32BE(1) - 4
        onType(header[0]!)
      }
      header = Buffer.alloc(0)
    }
  }
}

/**
 * A socket that shows each chunk it writes as it hands it to the network. Its stream's `_write` and `_writev` (the
 * two ways a writable stream passes on its chunks), not `write`: connecting puts a `write` of its own on the socket.
 */
class WatchedSocket extends Socket {
  constructor(private readonly sent: (chunk: Uint8Array) => void) {
    super()
  }

  override _write(chunk: Uint8Array, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.sent(chunk)
    super._write(chunk, encoding, callback)
  }

  override _writev(
    chunks: Array<{ chunk: Uint8Array; encoding: BufferEncoding }>,
    callback: (error?: Error | null) => void
  ): void {
    for (const { chunk } of chunks) this.sent(chunk)
    // A `net.Socket` always has one.
    super._writev?.(chunks, callback)
  }
}

export const makePgTraffic = (databaseUrl: string): PgTraffic => {
  const url = new URL(databaseUrl)
  const host = url.hostname === "" ? "localhost" : url.hostname
  const port = url.port === "" ? 5432 : Number(url.port)
  /** Per open socket: the answers it still waits for (its start-up's from the start). */
  const waiting = new Map<Socket, number>()

  const socket = () => {
    // Only while it is open: what a closed socket would still write is never answered, and never waited for.
    const add = (n: number) => {
      const before = waiting.get(s)
      if (before !== undefined) waiting.set(s, before + n)
    }
    const s: Socket = new WatchedSocket(framing((type) => {
      if (type === SYNC || type === QUERY) add(1)
    }, true))
    waiting.set(s, 1)
    // Added before the client adds its own, so it sees each chunk first: the answer is counted before the query's
    // fiber can resume and write the next one.
    s.on(
      "data",
      framing((type) => {
        if (type === READY_FOR_QUERY) add(-1)
      }, false)
    )
    s.once("close", () => waiting.delete(s))
    s.setNoDelay(true)
    s.connect({ host, port })
    return s
  }

  const busy = () => {
    for (const n of waiting.values()) if (n > 0) return true
    return false
  }

  return { socket, busy }
}
