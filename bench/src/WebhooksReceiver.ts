/**
 * The webhook phase's receiver, run in its own process so that the sender under test has a core to itself: node:http
 * on 127.0.0.1 that reads each body, answers 200 with an empty body at once, and counts what it received.
 * The parent talks to it over IPC: it announces `{ port }`, and answers `"count"` with `{ count, bytes }`.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

let count = 0
let bytes = 0

const server = createServer((req, res) => {
  req.on("data", (chunk: Buffer) => {
    bytes += chunk.length
  })
  req.on("end", () => {
    count++
    res.writeHead(200, { "content-length": "0" })
    res.end()
  })
})
// The senders keep their connections open; Node's 5 s default would close idle ones between drains.
server.keepAliveTimeout = 60_000

server.listen(0, "127.0.0.1", () => {
  process.send?.({ port: (server.address() as AddressInfo).port })
})

process.on("message", (message) => {
  if (message === "count") process.send?.({ count, bytes })
})
process.on("disconnect", () => {
  server.closeAllConnections()
  server.close()
})
