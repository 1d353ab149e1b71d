/**
 * Baseline 1: a minimal hand-written node:http server over better-sqlite3, for the three measured
 * operations plus /health, with the engine's token check, scoping, body rules and JSON shapes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { isUuid } from "../RawStore.js"
import { openRaw, pageQuery, ready, serverConfig } from "./Common.js"

const { database, port } = serverConfig()
const store = openRaw(database)
const MAX_BODY = 1024 * 1024
const CUSTOMER_PATH = "/v1/customers/"

const send = (res: ServerResponse, status: number, body: unknown) => {
  const json = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) })
  res.end(json)
}
const failure = (res: ServerResponse, status: number, error: string, code: string | null) =>
  send(res, status, { error, code, errors: null })
const invalid = (res: ServerResponse, errors: Record<string, Array<string>>) =>
  send(res, 422, { message: "The given data was invalid.", errors })

const readJson = (req: IncomingMessage, res: ServerResponse, then: (body: unknown) => void) => {
  if (!(req.headers["content-type"] ?? "").startsWith("application/json")) {
    return failure(res, 415, "Request bodies must be JSON.", "UNSUPPORTED_MEDIA_TYPE")
  }
  const chunks: Array<Buffer> = []
  let size = 0
  req.on("data", (chunk: Buffer) => {
    size += chunk.length
    if (size <= MAX_BODY) chunks.push(chunk)
  })
  req.on("end", () => {
    if (size > MAX_BODY) return failure(res, 413, "The request body is too large.", "PAYLOAD_TOO_LARGE")
    let body: unknown
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      return failure(res, 400, "The request body is not valid JSON.", "MALFORMED_JSON")
    }
    then(body)
  })
}

const route = (req: IncomingMessage, res: ServerResponse) => {
  const url = req.url ?? "/"
  const query = url.indexOf("?")
  const path = query === -1 ? url : url.slice(0, query)
  if (path === "/health") return send(res, 200, { status: "ok" })
  const principal = store.authenticate(req.headers.authorization)
  if (principal === null) return failure(res, 401, "Unauthenticated.", "UNAUTHENTICATED")
  if (req.method === "GET" && path.startsWith(CUSTOMER_PATH)) {
    const id = path.slice(CUSTOMER_PATH.length)
    if (!isUuid(id)) return invalid(res, { id: ["The id must be a valid UUID."] })
    const customer = store.getCustomer(principal.workspaceId, id)
    return customer === undefined
      ? failure(res, 404, "Customer not found.", "RESOURCE_NOT_FOUND")
      : send(res, 200, customer)
  }
  if (req.method === "GET" && path === "/v1/customers") {
    const absolute = new URL(url, `http://${req.headers.host ?? "localhost"}`)
    const q = pageQuery(absolute.searchParams)
    if (q._tag === "Invalid") return invalid(res, q.errors)
    return send(res, 200, store.listCustomers(principal.workspaceId, q.page, q.perPage, absolute))
  }
  if (req.method === "POST" && path === "/v1/conversations") {
    if (!principal.canWrite) {
      return failure(res, 403, "This token lacks the external-api:write ability.", "INSUFFICIENT_TOKEN_ABILITY")
    }
    return readJson(req, res, (body) => {
      const checked = store.validateConversation(body)
      if (checked._tag === "Invalid") return invalid(res, checked.errors)
      let result
      try {
        result = store.createConversation(principal, checked.input)
      } catch {
        return failure(res, 500, "Internal server error.", null)
      }
      return result._tag === "Created" ? send(res, 201, result.conversation) : invalid(res, result.errors)
    })
  }
  return failure(res, 404, "Route not found.", "ROUTE_NOT_FOUND")
}

const server = createServer((req, res) => {
  try {
    route(req, res)
  } catch {
    failure(res, 500, "Internal server error.", null)
  }
})

server.keepAliveTimeout = 60_000
server.listen(port, "127.0.0.1", () => ready(port))
