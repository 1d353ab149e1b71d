/**
 * A webhook receiver in plain Node (no Effect): verify the raw bytes first, dedupe by delivery id, answer 2xx
 * fast, then do the work.
 */
import { verifySync, type WebhookPayload, WebhookVerificationError } from "@support-engine/webhooks"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface ReceiverOptions {
  readonly host: string
  readonly port: number
  readonly path: string
  /** The webhook's secret (or secrets, while you rotate); undefined until it is known. */
  readonly secret: () => string | ReadonlyArray<string> | undefined
  readonly onDelivery: (payload: WebhookPayload) => void
  readonly onRefused: (reason: string) => void
}

export interface Receiver {
  readonly url: string
  readonly close: () => Promise<void>
}

const MAX_BODY_BYTES = 1024 * 1024

export const startReceiver = (options: ReceiverOptions): Promise<Receiver> => {
  // Deliveries are at least once: the same id may come twice. Remember the recent ones.
  const seen = new Set<string>()
  const server = createServer((req, res) => {
    if (req.method !== "POST" || req.url?.split("?")[0] !== options.path) {
      res.writeHead(404).end()
      return
    }
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) req.destroy()
      else chunks.push(chunk)
    })
    req.on("end", () => {
      const secret = options.secret()
      if (secret === undefined) {
        res.writeHead(503, { "retry-after": "5" }).end("not ready")
        return
      }
      try {
        const payload = verifySync(Buffer.concat(chunks), req.headers, secret)
        res.writeHead(204).end()
        if (seen.has(payload.id)) return
        seen.add(payload.id)
        if (seen.size > 10_000) seen.delete(seen.values().next().value!)
        options.onDelivery(payload)
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error
        options.onRefused(error.reason)
        res.writeHead(400, { "content-type": "text/plain" }).end(error.reason)
      }
    })
  })
  return new Promise((resolve) => {
    server.listen(options.port, options.host, () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://${options.host}:${port}${options.path}`,
        close: () => new Promise((done) => server.close(() => done()))
      })
    })
  })
}
