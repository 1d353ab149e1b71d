/**
 * The engine's PostgreSQL traffic, watched on its own sockets (issue 19): whether some query of the engine is still
 * waiting for its answer. `settle` (Advance.ts) calls the engine quiet only when none is, so the clock never moves
 * while a fiber waits on the network, and a run's steps see the same engine state whatever the server's timing.
 *
 * node-postgres sends a connection's next query only after the answer to the last one has ended with
 * ReadyForQuery ('Z'), the last message of every answer (and of the start-up). A connection is therefore idle
 * exactly when nothing was written to it since its last 'Z': the server's messages are framed (a type byte, then a
 * 32-bit length that counts itself), so the 'Z's are counted without reading the rest. This asks the server nothing,
 * where the `pg_stat_activity` query it replaces cost a round trip per settle round and saw a query only once the
 * server had it, not while it was on its way.
 */
import { Socket } from "node:net"

export interface PgTraffic {
  /** Makes a socket for node-postgres (storage's `clientLayer` option `pgSocket`), watched from the start. */
  readonly socket: () => Socket
  /** Whether a connection is starting or a query written to one has not been answered yet. */
  readonly busy: () => boolean
}

const READY_FOR_QUERY = 0x5a
const HEADER = 5

export const makePgTraffic = (): PgTraffic => {
  /** Per open socket: how many bytes had been written to it when its last answer ended; -1 before it is ready. */
  const answered = new Map<Socket, number>()

  const socket = () => {
    const s = new Socket()
    answered.set(s, -1)
    let header = Buffer.alloc(0)
    let skip = 0
    // Added before node-postgres adds its own, so it sees each chunk first: the answer is counted before the query's
    // fiber can resume and write the next one.
    s.on("data", (chunk: Buffer) => {
      let i = 0
      while (i < chunk.length) {
        if (skip > 0) {
          const n = Math.min(skip, chunk.length - i)
          skip -= n
          i += n
          continue
        }
        const take = Math.min(HEADER - header.length, chunk.length - i)
        header = Buffer.concat([header, chunk.subarray(i, i + take)])
        i += take
        if (header.length < HEADER) break
        skip = header.readUInt32BE(1) - 4
        if (header[0] === READY_FOR_QUERY) answered.set(s, s.bytesWritten)
        header = Buffer.alloc(0)
      }
    })
    s.once("close", () => answered.delete(s))
    return s
  }

  const busy = () => {
    for (const [s, at] of answered) if (at < 0 || s.bytesWritten > at) return true
    return false
  }

  return { socket, busy }
}
