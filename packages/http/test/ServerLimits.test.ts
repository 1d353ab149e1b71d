/**
 * The standalone server's connection limits (issue 16, docs/limits.md): thousands of idle sockets do not stop
 * `/health`; past `SUPPORT_MAX_CONNECTIONS` new sockets are closed and the server answers again once sockets go; an
 * idle socket is closed with 408 after the headers timeout; headers past `SUPPORT_MAX_HEADER_BYTES` are a 431.
 * Everything on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Result, Schedule } from "effect"
import { HttpServer } from "effect/http"
import type { NetAddress } from "effect/net"
import { execSync } from "node:child_process"
import { connect, type Socket } from "node:net"
import { DEFAULT_SERVER_LIMITS, serverLimitsConfig } from "../src/shared/ServerLimits.js"
import { standalone } from "./Harness.js"

const address = HttpServer.HttpServer.pipe(Effect.map((server) => {
  assert.strictEqual(server.address._tag, "InetAddressV4")
  return server.address as NetAddress.InetAddress
}))

/** `count` idle TCP connections to the server, closed when the scope closes, whatever happened. */
const idleSockets = (count: number) =>
  Effect.flatMap(address, ({ port }) =>
    Effect.acquireRelease(
      Effect.callback<Array<Socket>, Error>((resume) => {
        const sockets: Array<Socket> = []
        let connected = 0
        for (let i = 0; i < count; i++) {
          const socket = connect(port, "127.0.0.1")
          // A socket the server closes (past the maximum, or after a timeout) must not fail the test process.
          socket.on("error", () => undefined)
          socket.once("connect", () => {
            connected += 1
            if (connected === count) resume(Effect.succeed(sockets))
          })
          sockets.push(socket)
        }
      }),
      (sockets) => Effect.sync(() => sockets.forEach((socket) => socket.destroy()))
    ))

const health = Effect.flatMap(
  address,
  ({ port }) => Effect.tryPromise(() => fetch(`http://127.0.0.1:${port}/health`).then((response) => response.status))
)

/**
 * The process's open-file limit (Node raises the soft limit to the hard one at start; a child shell inherits it).
 * Each loopback connection made here costs two descriptors, the client's and the server's.
 */
const fdLimit = (): number => Number.parseInt(execSync("ulimit -n", { shell: "/bin/sh" }).toString().trim(), 10)

describe("server limits (issue 16)", () => {
  it.live("with 5,000 idle sockets open to 127.0.0.1, /health still answers", () =>
    Effect.gen(function*() {
      const limit = fdLimit()
      // 5,000 as the issue asks, fewer if this machine's limit cannot hold them with room for the rest.
      const count = Number.isFinite(limit) ? Math.min(5_000, Math.floor((limit - 1_000) / 2)) : 5_000
      assert.isAbove(count, 100, `open-file limit ${limit} is too low for this test`)
      yield* Effect.gen(function*() {
        const sockets = yield* idleSockets(count)
        assert.strictEqual(sockets.length, count)
        assert.strictEqual(yield* health, 200)
        assert.isTrue(sockets.every((socket) => !socket.destroyed), "no idle socket was dropped under the default")
      }).pipe(Effect.scoped, Effect.provide(standalone("limits-idle")))
    }), { timeout: 120_000 })

  it.live(
    "past SUPPORT_MAX_CONNECTIONS a new socket is closed; once sockets go, /health answers again",
    () =>
      Effect.gen(function*() {
        const sockets = yield* idleSockets(20)
        const refused = yield* Effect.result(health)
        assert.isTrue(Result.isFailure(refused), "the 21st connection is closed without an answer")
        sockets.forEach((socket) => socket.destroy())
        // The server counts a socket as gone when it sees the close: ask until it has.
        const status = yield* health.pipe(
          Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo({ duration: "10 seconds" })))
        )
        assert.strictEqual(status, 200)
      }).pipe(Effect.provide(standalone("limits-max", { SUPPORT_MAX_CONNECTIONS: "20" }))),
    { timeout: 60_000 }
  )

  it.live(
    "an idle socket is answered 408 and closed after SUPPORT_HEADERS_TIMEOUT_MS",
    () =>
      Effect.gen(function*() {
        const [socket] = yield* idleSockets(1)
        const received = yield* Effect.callback<string>((resume) => {
          let text = ""
          socket!.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")))
          socket!.once("close", () => resume(Effect.succeed(text)))
        })
        assert.match(received, /^HTTP\/1\.1 408 /)
        assert.strictEqual(yield* health, 200)
      }).pipe(
        Effect.provide(
          standalone("limits-timeout", { SUPPORT_HEADERS_TIMEOUT_MS: "300", SUPPORT_REQUEST_TIMEOUT_MS: "300" })
        )
      ),
    { timeout: 60_000 }
  )

  it.live(
    "headers past SUPPORT_MAX_HEADER_BYTES are a 431; under it they are served",
    () =>
      Effect.gen(function*() {
        const { port } = yield* address
        const status = (size: number) =>
          Effect.promise(() =>
            fetch(`http://127.0.0.1:${port}/health`, { headers: { "x-padding": "x".repeat(size) } }).then((r) =>
              r.status
            )
          )
        assert.strictEqual(yield* status(1_000), 200)
        assert.strictEqual(yield* status(3_000), 431)
      }).pipe(Effect.provide(standalone("limits-headers", { SUPPORT_MAX_HEADER_BYTES: "2048" }))),
    { timeout: 60_000 }
  )

  it.effect("defaults, and a request timeout shorter than the headers timeout is refused at start", () =>
    Effect.gen(function*() {
      const read = (settings: Record<string, string>) =>
        Effect.provideService(serverLimitsConfig, ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(settings))
      assert.deepStrictEqual(yield* read({}), DEFAULT_SERVER_LIMITS)
      assert.strictEqual((yield* read({ SUPPORT_MAX_CONNECTIONS: "7" })).maxConnections, 7)
      const bad = yield* Effect.flip(read({ SUPPORT_HEADERS_TIMEOUT_MS: "5000", SUPPORT_REQUEST_TIMEOUT_MS: "1000" }))
      assert.include(String(bad), "SUPPORT_REQUEST_TIMEOUT_MS must be at least SUPPORT_HEADERS_TIMEOUT_MS")
      const zero = yield* Effect.flip(read({ SUPPORT_KEEP_ALIVE_TIMEOUT_MS: "0" }))
      assert.include(String(zero), "SUPPORT_KEEP_ALIVE_TIMEOUT_MS")
    }))
})
