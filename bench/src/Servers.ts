/** The benchmark's server children: built as bundles, started on free loopback ports, stopped. */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { createServer } from "node:net"
import { dirname, join, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { type HttpRequestSpec, load, type LoadResult } from "./Load.js"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..")

export type ServerKind = "engine" | "raw" | "fastify" | "floor"
/** `floor` (servers/floor.ts) is HttpApi alone, the contract's schemas and fixed answers: the platform's share. */
export const SERVERS: ReadonlyArray<ServerKind> = ["engine", "raw", "fastify", "floor"]

const freePort = () =>
  new Promise<number>((ok, fail) => {
    const probe = createServer()
    probe.once("error", fail)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => ok(port))
    })
  })

export interface Running {
  readonly kind: StartKind
  readonly port: number
  readonly child: ChildProcess
  /** Process start to the first `/health` 200, in ms. */
  readonly startupMs: number
}

/**
 * Every server runs as a bundle (bench/build/servers/<kind>.mjs, built by `buildServers`), the way `pnpm start` runs
 * the engine (packages/cli/build.mjs): compiling TypeScript through tsx at start-up would dominate the start-up
 * figures and measure the loader, not the server. "serve" is `pnpm start` itself: the bundled executable.
 */
const serverCommand = (kind: StartKind): Array<string> =>
  kind === "serve"
    ? [join(root, "packages/cli/dist/bin/support-engine.mjs"), "serve"]
    : [join(root, "bench/build/servers", `${kind}.mjs`)]

/** The servers and `pnpm start`'s executable, bundled the same way (packages/cli/build.mjs). */
export const buildServers = () => {
  const build = (args: ReadonlyArray<string>) =>
    execFileSync(process.execPath, ["packages/cli/build.mjs", ...args], { cwd: root, stdio: "inherit" })
  build([])
  build(["bench/build/servers", ...SERVERS.map((kind) => `bench/src/servers/${kind}.ts`)])
}

export type StartKind = ServerKind | "serve"

/**
 * Starts a server child on a free loopback port over `database` and waits for its `/health`. `env` adds to its
 * environment and wins over what is set here (`SUPPORT_RATE_LIMIT_PER_SECOND=0` turns the limiter off); `log`
 * reports an unexpected exit.
 */
export const startServer = (
  kind: StartKind,
  database: string,
  log: (message: string) => void,
  env: Record<string, string> = {}
): Promise<Running> => startBundle(kind, serverCommand(kind), root, database, log, env)

/**
 * Starts `command` (a bundle and its arguments, run by this Node) in `cwd` as a server over `database`, the way
 * `startServer` starts its kinds: `--builds` starts other checkouts' engine servers with it.
 */
export const startBundle = async (
  kind: StartKind,
  command: ReadonlyArray<string>,
  cwd: string,
  database: string,
  log: (message: string) => void,
  env: Record<string, string> = {}
): Promise<Running> => {
  const port = await freePort()
  const childEnv = {
    ...process.env,
    BENCH_DB: database,
    BENCH_PORT: String(port),
    SUPPORT_DATABASE_URL: `file:${database}`,
    SUPPORT_HOST: "127.0.0.1",
    SUPPORT_PORT: String(port),
    // One token sends every request: limits no run can reach, so the limiter's cost is measured, not its 429s.
    SUPPORT_RATE_LIMIT_PER_SECOND: "1000000000",
    SUPPORT_RATE_LIMIT_BURST: "1000000000",
    ...env
  }
  const t0 = performance.now()
  const child = spawn(process.execPath, command, {
    cwd,
    env: childEnv,
    stdio: ["ignore", "ignore", "pipe", "ipc"]
  })
  let stderr = ""
  child.stderr?.on("data", (chunk: Buffer) => {
    if (stderr.length < 10_000) stderr += chunk.toString()
  })
  child.once("exit", (code, signal) => {
    if (signal !== "SIGTERM") log(`  ${kind} server exited (${code ?? signal}): ${stderr.slice(0, 2_000)}`)
  })
  const deadline = t0 + 60_000
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${kind} server exited (${child.exitCode}): ${stderr}`)
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false)
    if (ok) return { kind, port, child, startupMs: performance.now() - t0 }
    await new Promise((r) => setTimeout(r, 5))
  }
  child.kill("SIGKILL")
  throw new Error(`${kind} server did not answer /health within 60 s: ${stderr}`)
}

export const stopServer = (server: Running) =>
  new Promise<void>((ok) => {
    if (server.child.exitCode !== null) return ok()
    const timer = setTimeout(() => server.child.kill("SIGKILL"), 5_000)
    server.child.once("exit", () => {
      clearTimeout(timer)
      ok()
    })
    server.child.kill("SIGTERM")
  })

/** User and system CPU time of a process in ms (Linux /proc; the kernel counts in ticks of 10 ms). */
export const cpuMillis = (pid: number | undefined): number => {
  const file = `/proc/${pid}/stat`
  if (pid === undefined || !existsSync(file)) return Number.NaN
  // Fields after the command name, which may hold spaces, closed by ") ": utime and stime are the 12th and 13th.
  const fields = readFileSync(file, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** One load of a running server (`load`'s window and connections) and its CPU per request over the whole load. */
export const loadWithCpu = async (
  running: Running,
  settings: { readonly connections: number; readonly warmupMs: number; readonly measureMs: number },
  request: HttpRequestSpec
): Promise<LoadResult & { readonly cpuMicros: number }> => {
  const before = cpuMillis(running.child.pid)
  const loaded = await load({
    baseUrl: `http://127.0.0.1:${running.port}`,
    connections: settings.connections,
    warmupMs: settings.warmupMs,
    measureMs: settings.measureMs,
    request
  })
  const requests = loaded.rps * (settings.warmupMs + settings.measureMs) / 1000
  return { ...loaded, cpuMicros: (cpuMillis(running.child.pid) - before) * 1000 / requests }
}
