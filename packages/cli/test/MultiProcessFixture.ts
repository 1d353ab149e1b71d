/**
 * Parts of the multi-process test (D43): a throwaway PostgreSQL database, `support-engine serve` child processes that
 * the test can SIGKILL, and a webhook receiver that counts deliveries by id and tells which process sent each one.
 */
import { PgClient } from "@effect/sql-pg"
import { CreateApiToken, CreateWorkspace, EngineLive, Tokens, Workspaces } from "@support-engine/core"
import { StorageLive } from "@support-engine/storage"
import { type Context, type Duration, Effect, Layer, Redacted, Schedule, type Scope } from "effect"
import type { ChildProcessSpawner } from "effect/process"
import type { SqlClient } from "effect/sql"
import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { serve, type Server } from "./Harness.js"

/** The server named by SUPPORT_TEST_PG_URL; without it the PostgreSQL tests are skipped. */
export const adminUrl: string | undefined = process.env["SUPPORT_TEST_PG_URL"]

const onAdmin = <A, E>(admin: string, run: (sql: PgClient.PgClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(PgClient.PgClient, run).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(admin), maxConnections: 1 })),
    Effect.scoped
  )

/**
 * A fresh database `support_engine_mp_<random>` for the scope, dropped when it closes (FORCE ends the connections of
 * a process that was killed and never closed its pool), with a client on it for the test's own queries.
 */
export const freshDatabase = (admin: string) =>
  Effect.gen(function*() {
    const name = `support_engine_mp_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
    yield* Effect.acquireRelease(
      onAdmin(admin, (sql) => sql.unsafe(`CREATE DATABASE ${name}`)),
      () => Effect.orDie(onAdmin(admin, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)))
    )
    const url = new URL(admin)
    url.pathname = `/${name}`
    // Built after the database exists and so released before it is dropped (finalizers run in reverse).
    const client: Context.Context<SqlClient.SqlClient> = yield* Layer.build(
      PgClient.layer({ url: Redacted.make(url.toString()), maxConnections: 2 })
    )
    return { url: url.toString(), client } as const
  })

/**
 * Migrates the database and creates `count` workspaces with a write token each, as `pnpm cli workspace create` and
 * `token create` do (the API has no endpoint for either). Several workspaces because one workspace's creates
 * serialise on its list counters (docs/scaling.md); the test wants the queue, not that lock, to be the busy part.
 */
export const provision = (url: string, count: number) =>
  Effect.gen(function*() {
    const workspaces = yield* Workspaces
    const tokens = yield* Tokens
    return yield* Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) =>
      Effect.gen(function*() {
        const workspace = yield* workspaces.create(new CreateWorkspace({ name: `Tenant ${i}` }))
        const issued = yield* tokens.create(
          new CreateApiToken({ workspace_id: workspace.id, name: "load", abilities: ["external-api:write"] })
        )
        return Redacted.value(issued.plain)
      }))
  }).pipe(Effect.provide(EngineLive.pipe(Layer.provideMerge(StorageLive(url)))))

/** A running `support-engine serve` (Harness.ts), named; SIGTERM to its process group when the scope closes. */
export interface ServerProcess extends Server {
  readonly name: string
}

/** Starts `support-engine serve` as `pnpm start` does, on a system-chosen port, on 127.0.0.1. */
export const startServer = (
  name: string,
  env: Record<string, string>
): Effect.Effect<ServerProcess, unknown, ChildProcessSpawner.ChildProcessSpawner | Scope.Scope> =>
  Effect.map(serve({ ...env, SUPPORT_HOST: "127.0.0.1" }, name), (server) => ({ ...server, name }))

/** One request the receiver got. */
export interface Hit {
  /** `webhook-id`: the delivery id, the same on every attempt (D37). */
  readonly id: string
  /** The request path: which webhook's URL was called. */
  readonly path: string
  /** The name of the process whose socket sent it, when the operating system tells (Linux `/proc`). */
  readonly from: string | undefined
  /** The order of arrival, from 1. */
  readonly seq: number
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, "0")
const LOOPBACK_HEX = "0100007F"

/** The inode of the client socket `127.0.0.1:clientPort -> 127.0.0.1:serverPort`, from `/proc/net/tcp`. */
const clientSocketInode = (clientPort: number, serverPort: number): string | undefined => {
  const local = `${LOOPBACK_HEX}:${hexPort(clientPort)}`
  const remote = `${LOOPBACK_HEX}:${hexPort(serverPort)}`
  for (const row of readFileSync("/proc/net/tcp", "utf8").split("\n")) {
    const fields = row.trim().split(/\s+/)
    if (fields[1] === local && fields[2] === remote) return fields[9]
  }
  return undefined
}

/** The open descriptors of `pid`; none once it has exited. */
const descriptors = (pid: number): ReadonlyArray<string> => {
  try {
    return readdirSync(`/proc/${pid}/fd`)
  } catch {
    // The process is gone (the killed one): it holds no socket.
    return []
  }
}

/** Which of `processes` holds the socket `inode` open, by its `/proc/<pid>/fd` links. */
const ownerOf = (inode: string, processes: ReadonlyMap<number, string>): string | undefined => {
  const link = `socket:[${inode}]`
  for (const [pid, name] of processes) {
    for (const fd of descriptors(pid)) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === link) return name
      } catch {
        // The descriptor closed between listing and reading: it is not the socket that just connected.
      }
    }
  }
  return undefined
}

/**
 * A webhook receiver on 127.0.0.1 that answers 200 (after `delayMs`, when set) and keeps every request. `onHit` runs
 * synchronously before the answer, so a process killed from it dies with the request in flight. Each connection is
 * attributed to the process that holds its client socket, looked up when the connection is accepted.
 */
export const countingReceiver = Effect.gen(function*() {
  const hits: Array<Hit> = []
  const counts = new Map<string, number>()
  const processes = new Map<number, string>()
  const owners = new WeakMap<Socket, string | undefined>()
  const state = {
    delayMs: 0,
    onHit: (_hit: Hit): void => {}
  }
  const attributable = process.platform === "linux"
  let port = 0

  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const header = req.headers["webhook-id"]
      const hit: Hit = {
        id: typeof header === "string" ? header : "",
        path: req.url ?? "",
        from: owners.get(req.socket),
        seq: hits.length + 1,
        headers: req.headers,
        body: Buffer.concat(chunks)
      }
      hits.push(hit)
      counts.set(hit.id, (counts.get(hit.id) ?? 0) + 1)
      state.onHit(hit)
      const send = () => {
        if (!res.destroyed) res.writeHead(200).end()
      }
      if (state.delayMs > 0) setTimeout(send, state.delayMs)
      else send()
    })
  })
  server.on("connection", (socket) => {
    if (attributable && socket.remotePort !== undefined) {
      const inode = clientSocketInode(socket.remotePort, port)
      owners.set(socket, inode === undefined ? undefined : ownerOf(inode, processes))
    }
  })
  port = yield* Effect.acquireRelease(
    Effect.callback<number>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
    }),
    () =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    hits,
    counts,
    state,
    attributable,
    /** Attributes connections from `pid` to `name` from now on. */
    watch: (pid: number, name: string) => Effect.sync(() => processes.set(pid, name))
  } as const
})

/** Repeats `check` every 100 ms until it returns true; fails with `describe()` after `limit`. */
export const waitUntil = <E, R>(
  check: Effect.Effect<boolean, E, R>,
  limit: Duration.Input,
  describe: () => string
): Effect.Effect<void, E | Error, R> =>
  check.pipe(
    Effect.repeat({ schedule: Schedule.spaced("100 millis"), until: (ok) => ok }),
    Effect.timeoutOrElse({ duration: limit, orElse: () => Effect.fail(new Error(describe())) }),
    Effect.asVoid
  )
