/** A real webhook receiver for tests: node:http on 127.0.0.1, answering by script and recording every request. */
import { Effect, Queue } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface Hit {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  /** The raw bytes received, before any parsing. */
  readonly body: Buffer
  /** `performance.now()` when the request's body was complete. */
  readonly at: number
  readonly remotePort: number | undefined
}

export type Reply =
  | {
    readonly status: number
    readonly headers?: Readonly<Record<string, string>>
    readonly body?: string
    readonly delayMs?: number
    /** Called once the answer has been handed to the operating system. */
    readonly onSent?: () => void
  }
  | "hang"

/** Starts a receiver for the scope; `n` counts requests from 1. */
export const startReceiver = (reply: (n: number, hit: Hit) => Reply) =>
  Effect.gen(function*() {
    const hits = yield* Queue.unbounded<Hit>()
    const all: Array<Hit> = []
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const hit: Hit = {
          method: req.method ?? "",
          path: req.url ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks),
          at: performance.now(),
          remotePort: req.socket.remotePort
        }
        all.push(hit)
        Queue.offerUnsafe(hits, hit)
        const answer = reply(all.length, hit)
        if (answer === "hang") return
        const send = () => {
          if (res.destroyed) return
          res.writeHead(answer.status, answer.headers ?? {})
          res.end(answer.body ?? "", answer.onSent)
        }
        if (answer.delayMs === undefined) send()
        else setTimeout(send, answer.delayMs)
      })
    })
    const port = yield* Effect.acquireRelease(
      Effect.callback<number>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    /** Connections still open; none once every client has gone and each request it sent has been read. */
    const openConnections = Effect.callback<number>((resume) => {
      server.getConnections((error, count) => resume(error ? Effect.die(error) : Effect.succeed(count)))
    })
    return { port, url: (path = "/in") => `http://127.0.0.1:${port}${path}`, hits, all, openConnections } as const
  })
