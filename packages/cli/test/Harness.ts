/**
 * Runs the real `support-engine` executable as a child process, the way `pnpm cli` and `pnpm start` do (the bundle
 * `packages/cli/dist/bin/support-engine.mjs`, built by the global setup, from the repository root), on a database the
 * test chooses. Everything waits on a deadline and fails with what the process printed, never on a sleep.
 */
import { Deferred, Duration, Effect, Exit, Queue, Ref, Schedule, type Scope, Stream } from "effect"
import { ChildProcess, type ChildProcessSpawner } from "effect/process"
import { createServer as createHttpServer, request, type Server as HttpServer } from "node:http"
import { createConnection } from "node:net"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const bin = `${root}packages/cli/dist/bin/support-engine.mjs`

/** Time a process gets to start or to reach an expected state (generous: CI machines are shared). */
export const DEADLINE = Duration.seconds(45)

/** The environment the CLI sees: inherited `SUPPORT_*` variables are overridden so that tests are hermetic. */
const environment = (env: Record<string, string>): Record<string, string> => ({
  SUPPORT_HOST: "127.0.0.1",
  SUPPORT_PORT: "8080",
  SUPPORT_MAX_BODY_BYTES: "1048576",
  SUPPORT_DEFAULT_AGENT_MODEL: "gpt-4o-mini",
  SUPPORT_WEBHOOK_ALLOW_PRIVATE: "false",
  SUPPORT_WEBHOOK_RETRY_BASE_MS: "60000",
  SUPPORT_WEBHOOK_TIMEOUT_MS: "10000",
  ...env
})

export const command = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  ChildProcess.make(process.execPath, [bin, ...args], { env: environment(env), extendEnv: true, cwd: root })

const text = <E>(stream: Stream.Stream<Uint8Array, E>) => stream.pipe(Stream.decodeText(), Stream.mkString)

export interface Result {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

/** One CLI invocation to its end. */
export const cli = (
  env: Record<string, string>,
  ...args: ReadonlyArray<string>
): Effect.Effect<Result, unknown, ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.scoped(Effect.gen(function*() {
    const proc = yield* command(args, env)
    const [stdout, stderr, exitCode] = yield* Effect.all([text(proc.stdout), text(proc.stderr), proc.exitCode], {
      concurrency: "unbounded"
    })
    return { exitCode, stdout, stderr }
  })).pipe(
    Effect.timeoutOrElse({
      duration: DEADLINE,
      orElse: () => Effect.fail(new Error(`timed out: ${args.join(" ")}`))
    })
  )

/** The one JSON object a `--json` command printed, after checking that it succeeded. */
export const cliJson = (env: Record<string, string>, ...args: ReadonlyArray<string>) =>
  Effect.flatMap(cli(env, ...args), (result) => {
    const lines = result.stdout.trim().split("\n")
    return result.exitCode === 0 && lines.length === 1
      ? Effect.sync((): unknown => JSON.parse(lines[0]!))
      : Effect.fail(new Error(`support-engine ${args.join(" ")} failed: ${JSON.stringify(result)}`))
  })

/** Repeats `check` every 50 ms until it returns true; fails with `describe()` after the deadline. */
export const eventually = <E, R>(
  check: Effect.Effect<boolean, E, R>,
  describe: () => Effect.Effect<string>
): Effect.Effect<void, E | Error, R> =>
  check.pipe(
    Effect.repeat({ schedule: Schedule.spaced("50 millis"), until: (ok) => ok }),
    Effect.timeout(DEADLINE),
    Effect.catchTag("TimeoutError", () => Effect.flatMap(describe(), (s) => Effect.fail(new Error(s)))),
    Effect.asVoid
  )

/** Whether something accepts TCP connections on the port. */
export const accepting = (port: number): Effect.Effect<boolean> =>
  Effect.callback((resume) => {
    const socket = createConnection({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

/** A running `support-engine serve`, stopped with SIGTERM (to its process group) when the scope closes. */
export interface Server {
  readonly port: number
  readonly baseUrl: string
  readonly stdout: Effect.Effect<string>
  readonly stderr: Effect.Effect<string>
  readonly pid: number
  readonly isRunning: Effect.Effect<boolean, unknown>
  /** Waits for the process to exit, however it ends (a process killed by a signal has no exit code). */
  readonly exited: Effect.Effect<void, unknown>
  /** Sends SIGTERM (to the process group, like Ctrl+C in a terminal) and waits for the exit code. */
  readonly stop: Effect.Effect<number, unknown>
}

/** Starts `serve`; `name` tells several servers apart in failure messages. */
export const serve = (
  env: Record<string, string>,
  name = "serve"
): Effect.Effect<Server, unknown, ChildProcessSpawner.ChildProcessSpawner | Scope.Scope> =>
  Effect.gen(function*() {
    // Port 0: the system picks a free port, and the banner says which.
    const proc = yield* command(["serve"], { ...env, SUPPORT_PORT: "0" })
    const stdout = yield* Ref.make("")
    const stderr = yield* Ref.make("")
    yield* Effect.forkScoped(
      Stream.runForEach(proc.stdout.pipe(Stream.decodeText()), (s) => Ref.update(stdout, (o) => o + s))
    )
    yield* Effect.forkScoped(
      Stream.runForEach(proc.stderr.pipe(Stream.decodeText()), (s) => Ref.update(stderr, (o) => o + s))
    )
    yield* eventually(
      Effect.map(Ref.get(stdout), (out) => out.includes("Press Ctrl+C to stop.")),
      () => Effect.map(Effect.all([Ref.get(stdout), Ref.get(stderr)]), ([o, e]) => `${name} did not start:\n${o}\n${e}`)
    )
    const banner = yield* Ref.get(stdout)
    const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)\n/.exec(banner)?.[1])
    if (!Number.isInteger(port) || port <= 0) return yield* Effect.fail(new Error(`no port in:\n${banner}`))
    return {
      port,
      baseUrl: `http://127.0.0.1:${port}`,
      stdout: Ref.get(stdout),
      stderr: Ref.get(stderr),
      pid: proc.pid,
      isRunning: proc.isRunning,
      exited: Effect.asVoid(Effect.exit(proc.exitCode)),
      stop: Effect.andThen(proc.kill({ killSignal: "SIGTERM" }), proc.exitCode)
    } satisfies Server
  })

/** A status and body from `fetch`. */
export const fetchJson = (url: string, init: RequestInit = {}) =>
  Effect.tryPromise(async () => {
    const response = await fetch(url, init)
    const body = await response.text()
    return { status: response.status, body: body.length === 0 ? null : JSON.parse(body) as unknown }
  })

/**
 * A POST whose headers go out at once with `Expect: 100-continue` and whose body waits for `send`: once `started`
 * succeeds, the server has begun handling the request (Node answers 100 Continue as it dispatches it).
 */
export const slowPost = (url: string, headers: Record<string, string>, body: string) =>
  Effect.gen(function*() {
    const started = yield* Deferred.make<void>()
    const response = yield* Deferred.make<{ status: number; body: string }, Error>()
    const req = request(url, {
      method: "POST",
      headers: { ...headers, expect: "100-continue", "content-length": String(Buffer.byteLength(body)) }
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () =>
        Deferred.doneUnsafe(
          response,
          Exit.succeed({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") })
        ))
      res.on("error", (error) => Deferred.doneUnsafe(response, Exit.fail(error)))
    })
    req.on("continue", () => Deferred.doneUnsafe(started, Exit.void))
    req.on("error", (error) => Deferred.doneUnsafe(response, Exit.fail(error)))
    req.flushHeaders()
    return {
      started: Deferred.await(started),
      send: Effect.sync(() => req.end(body)),
      response: Deferred.await(response)
    }
  })

/** A request a receiver got: its headers and exact body. */
export interface Received {
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

/** A webhook receiver on a loopback port that answers 204 and queues what it receives; closed with the scope. */
export const receiver: Effect.Effect<
  { readonly url: string; readonly next: Effect.Effect<Received> },
  never,
  Scope.Scope
> = Effect.gen(function*() {
  const received = yield* Queue.unbounded<Received>()
  const server = yield* Effect.acquireRelease(
    Effect.callback<HttpServer>((resume) => {
      const server = createHttpServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          Queue.offerUnsafe(received, { headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
          res.writeHead(204).end()
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  )
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return { url: `http://127.0.0.1:${port}/hook`, next: Queue.take(received) }
})
