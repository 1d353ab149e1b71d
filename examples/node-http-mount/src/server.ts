/**
 * An existing plain node:http server (no Effect in its own code) that mounts the support-engine API beside its own
 * routes. `makeNodeHandler` turns the engine into a `(req, res)` listener; the host decides which requests it gets.
 */
import { supportEngineLayer } from "@support-engine/engine"
import { makeNodeHandler } from "@support-engine/http"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface HostOptions {
  /** `file:./data/support.db`, `file::memory:` or `postgres://…`. */
  readonly databaseUrl: string
  readonly host?: string
  /** 0 picks a free port. */
  readonly port?: number
}

export interface RunningHost {
  /** `http://host:port`, without a trailing slash. */
  readonly url: string
  /** Stops accepting connections, lets requests in flight finish, then releases the engine. */
  readonly close: () => Promise<void>
}

/** The engine's paths: the API under /v1, and its system routes (health, OpenAPI document, reference page). */
const isEnginePath = (path: string): boolean =>
  path === "/v1" || path.startsWith("/v1/") || path === "/health" || path === "/openapi.json" || path === "/docs"

/** The host's own routes: whatever the application already served before it mounted the API. */
const hostRoutes = (request: IncomingMessage, response: ServerResponse, path: string): void => {
  if (request.method === "GET" && path === "/") {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(
      "<h1>My application</h1><p>Support API: <a href=\"/docs\">/docs</a>, <a href=\"/openapi.json\">/openapi.json</a>," +
        " <code>/v1/…</code> with a bearer token.</p>"
    )
    return
  }
  if (request.method === "GET" && path === "/status") {
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ app: "my-application", ok: true }))
    return
  }
  response.writeHead(404, { "content-type": "text/plain" })
  response.end("Not found (host)")
}

export const startHost = async (options: HostOptions): Promise<RunningHost> => {
  // The handler builds the engine in its own runtime, once, starting now: migrations, then the training worker and
  // the webhook dispatcher (so webhooks created through /v1 are delivered). Requests wait for it; `dispose` stops it.
  const engine = makeNodeHandler(supportEngineLayer({ databaseUrl: options.databaseUrl }))

  let closing: Promise<void> | undefined
  const server = createServer((request, response) => {
    // While closing, a keep-alive connection is closed as soon as its response is sent, so close() need not wait
    // for the client's keep-alive timeout.
    response.once("finish", () => {
      if (closing !== undefined) server.closeIdleConnections()
    })
    const path = new URL(request.url ?? "/", "http://host.invalid").pathname
    // The API reads the full request URL itself, so list links and 404s keep their /v1 paths: no rewriting needed.
    if (isEnginePath(path)) engine.handler(request, response)
    else hostRoutes(request, response, path)
  })

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 3000, options.host ?? "127.0.0.1", () => resolve())
  })
  const { address, port } = server.address() as AddressInfo
  const hostname = address.includes(":") ? `[${address}]` : address

  const close = () =>
    closing ??= new Promise<void>((resolve, reject) => {
      // server.close() stops accepting and calls back once every connection has ended: idle keep-alive ones are
      // closed now, busy ones after their response. The engine goes last: requests in flight still need it.
      server.close((error) => (error === undefined ? resolve() : reject(error)))
      server.closeIdleConnections()
    }).finally(() => engine.dispose())

  return { url: `http://${hostname}:${port}`, close }
}
