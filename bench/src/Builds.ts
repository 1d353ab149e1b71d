/**
 * `pnpm bench --builds name=checkout ...`: the engine servers of several checkouts of this repository
 * (an older commit in a `git worktree` with its dependencies installed, this one as `.`), each on a database of
 * 100,000 customers seeded by its own code, loaded alternately in one sitting: GET by id, a list page and a create,
 * each round in a rotated order. On a shared machine only ratios between builds of one sitting say anything about
 * the code (docs/performance.md). Beside each rate, the CPU the server spent per request, read from /proc where
 * there is one: it moves less than the rate with the neighbours' load.
 */
import { execFileSync } from "node:child_process"
import { Agent, request as httpRequest } from "node:http"
import { join, resolve } from "node:path"
import { operationRequests } from "./Fixtures.js"
import { type Operation, OPERATIONS } from "./InProcess.js"
import type { HttpRequestSpec } from "./Load.js"
import type { Seeded } from "./Seed.js"
import { loadWithCpu, type Running, startBundle, stopServer } from "./Servers.js"
import { median } from "./Settings.js"
import { stepsPhase, stepsReport, type StepsResult } from "./Steps.js"

export interface Build {
  readonly name: string
  readonly dir: string
}

export interface BuildsSettings {
  readonly customers: number
  readonly rounds: number
  readonly warmupMs: number
  readonly measureMs: number
  readonly connections: number
  /** Sequential requests per operation whose runtime steps are counted (after as many to warm up). */
  readonly stepRequests: number
  /** Sequential requests per operation and build whose latency is taken, in chunks of 100 alternating builds. */
  readonly sequentialRequests: number
}

interface Sample {
  readonly rps: number
  /** Server CPU per request in µs, over the warm-up and the window; NaN where /proc cannot tell. */
  readonly cpuMicros: number
}

/** Latency in µs of requests sent one at a time: the lowest, the 10th percentile and the median. */
interface Sequential {
  readonly min: number
  readonly p10: number
  readonly p50: number
}

export interface BuildsResult {
  readonly load: Record<Operation, Record<string, ReadonlyArray<Sample>>>
  /** Each build's latency of requests sent one at a time (`sequentialPhase`). */
  readonly sequential: Record<Operation, Record<string, Sequential>>
  /** Runtime steps per request of each build (Steps.ts). */
  readonly steps: StepsResult
}

/** The `name=dir` arguments after `--builds`, up to the next option. */
export const buildsOf = (argv: ReadonlyArray<string>): ReadonlyArray<Build> => {
  const at = argv.indexOf("--builds")
  if (at === -1) return []
  const builds: Array<Build> = []
  for (const arg of argv.slice(at + 1)) {
    if (arg.startsWith("--")) break
    const separator = arg.indexOf("=")
    if (separator <= 0) throw new Error(`--builds takes name=checkout pairs, got "${arg}"`)
    builds.push({ name: arg.slice(0, separator), dir: resolve(arg.slice(separator + 1)) })
  }
  if (builds.length === 0) throw new Error("--builds takes one or more name=checkout pairs")
  return builds
}

/** Seeds a database with the build's own code (its schema, its token format), through its own tsx. */
const seedWith = (build: Build, file: string, customers: number): Seeded => {
  const script = `const { seed } = await import(${JSON.stringify(join(build.dir, "bench/src/Seed.ts"))});
    process.stdout.write("SEEDED " + JSON.stringify(await seed(${JSON.stringify(file)}, ${customers})) + "\\n")`
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: build.dir,
    stdio: ["ignore", "pipe", "inherit"]
  }).toString()
  const line = out.split("\n").find((l) => l.startsWith("SEEDED "))
  if (line === undefined) throw new Error(`${build.name}: its seed printed no result`)
  return JSON.parse(line.slice("SEEDED ".length)) as Seeded
}

export const buildsPhase = async (
  builds: ReadonlyArray<Build>,
  dir: string,
  settings: BuildsSettings,
  progress: (message: string) => void
): Promise<BuildsResult> => {
  const servers: Array<{ readonly build: Build; readonly seeded: Seeded; readonly running: Running }> = []
  let sequential = Object.fromEntries(OPERATIONS.map((op) => [op, {}])) as Record<
    Operation,
    Record<string, Sequential>
  >
  const result = Object.fromEntries(OPERATIONS.map((op) => [op, {}])) as Record<
    Operation,
    Record<string, Array<Sample>>
  >
  try {
    for (const build of builds) {
      progress(`builds: ${build.name} (${build.dir}): bundle its engine server, seed its database`)
      execFileSync(process.execPath, ["packages/cli/build.mjs", "bench/build/servers", "bench/src/servers/engine.ts"], {
        cwd: build.dir,
        stdio: "inherit"
      })
      const seeded = seedWith(build, join(dir, `build-${build.name}.db`), settings.customers)
      const command = [join(build.dir, "bench/build/servers/engine.mjs")]
      const running = await startBundle("engine", command, build.dir, seeded.file, progress)
      servers.push({ build, seeded, running })
    }
    for (let round = 0; round < settings.rounds; round++) {
      for (const op of OPERATIONS) {
        for (let i = 0; i < servers.length; i++) {
          const { build, running, seeded } = servers[(i + round) % servers.length]!
          const loaded = await loadWithCpu(running, settings, operationRequests(seeded)[op])
          const { cpuMicros } = loaded
          ;(result[op][build.name] ??= []).push({ rps: loaded.rps, cpuMicros })
          progress(
            `  builds round ${round + 1} ${op.padEnd(6)} ${build.name.padEnd(12)} ${
              Math.round(loaded.rps).toString().padStart(6)
            } req/s, ${Number.isNaN(cpuMicros) ? "-" : Math.round(cpuMicros)} µs CPU per request${
              loaded.failures > 0 ? `, ${loaded.failures} failures` : ""
            }`
          )
        }
      }
    }
    sequential = await sequentialPhase(servers, settings.sequentialRequests, progress)
  } finally {
    for (const { running } of servers) await stopServer(running)
  }
  // After the timed rounds, with their servers stopped: counting slows a server down.
  const steps = await stepsPhase(servers, settings.stepRequests, progress)
  return { load: result, sequential, steps }
}

/** One request on a kept-alive connection of `agent`; its latency in µs. */
const timed = (agent: Agent, port: number, spec: HttpRequestSpec): Promise<number> =>
  new Promise((ok, fail) => {
    const started = process.hrtime.bigint()
    const body = spec.body?.()
    const request = httpRequest(
      { host: "127.0.0.1", port, method: spec.method, path: spec.path(), headers: spec.headers, agent },
      (response) => {
        response.resume()
        response.on("end", () =>
          (response.statusCode ?? 500) < 300
            ? ok(Number(process.hrtime.bigint() - started) / 1000)
            : fail(new Error(`${spec.method} answered ${response.statusCode}`)))
      }
    )
    request.on("error", fail)
    request.end(body)
  })

/**
 * Requests one at a time, `requests` per operation and build in chunks of 100 that alternate between the builds.
 * A request alone meets no queue of its own, and its fastest answers are the ones no neighbour interrupted: the low
 * percentiles of this latency (client and loopback included) tell the builds' cost per request apart on a machine
 * too busy for rates to.
 */
const sequentialPhase = async (
  servers: ReadonlyArray<{ readonly build: Build; readonly seeded: Seeded; readonly running: Running }>,
  requests: number,
  progress: (message: string) => void
): Promise<Record<Operation, Record<string, Sequential>>> => {
  const result = Object.fromEntries(OPERATIONS.map((op) => [op, {}])) as Record<Operation, Record<string, Sequential>>
  const agents = servers.map(() => new Agent({ keepAlive: true, maxSockets: 1 }))
  try {
    for (const op of OPERATIONS) {
      const latencies = servers.map(() => [] as Array<number>)
      const specs = servers.map(({ seeded }) => operationRequests(seeded)[op])
      for (let i = 0; i < servers.length; i++) {
        for (let n = 0; n < 100; n++) await timed(agents[i]!, servers[i]!.running.port, specs[i]!)
      }
      for (let chunk = 0; chunk < requests / 100; chunk++) {
        for (let j = 0; j < servers.length; j++) {
          const i = (j + chunk) % servers.length
          for (let n = 0; n < 100; n++) latencies[i]!.push(await timed(agents[i]!, servers[i]!.running.port, specs[i]!))
        }
      }
      servers.forEach(({ build }, i) => {
        const sorted = latencies[i]!.sort((a, b) => a - b)
        const at = (p: number) => sorted[Math.floor(p * (sorted.length - 1))]!
        result[op][build.name] = { min: sorted[0]!, p10: at(0.1), p50: at(0.5) }
        progress(
          `  sequential ${op.padEnd(6)} ${build.name.padEnd(12)} min ${Math.round(sorted[0]!)} µs, p10 ${
            Math.round(at(0.1))
          } µs, p50 ${Math.round(at(0.5))} µs`
        )
      })
    }
  } finally {
    for (const agent of agents) agent.destroy()
  }
  return result
}

/**
 * Medians of the rounds. The ratio is the median of each round's rate over the first build's in the same round:
 * the windows of one round are seconds apart, so a neighbour's burst moves one round's pair, not the whole ratio.
 */
export const buildsReport = (result: BuildsResult): string => {
  const lines = [
    "Builds side by side (medians of the rounds; ratio = median of each round's rate over the first build's; CPU ratio likewise)"
  ]
  for (const op of OPERATIONS) {
    const names = Object.keys(result.load[op])
    const first = result.load[op][names[0]!]!
    lines.push(`${op}:`)
    for (const name of names) {
      const samples = result.load[op][name]!
      const rps = median(samples.map((s) => s.rps))
      const cpu = median(samples.map((s) => s.cpuMicros))
      const ratio = median(samples.map((s, round) => s.rps / first[round]!.rps))
      const cpuRatio = median(samples.map((s, round) => s.cpuMicros / first[round]!.cpuMicros))
      lines.push(
        `  ${name.padEnd(12)} ${Math.round(rps).toString().padStart(6)} req/s  ${ratio.toFixed(2)}x  ${
          Number.isNaN(cpu) ? "-" : `${Math.round(cpu)} µs CPU/request (${cpuRatio.toFixed(2)}x)`
        }  rounds ${samples.map((s) => Math.round(s.rps)).join("/")}`
      )
    }
  }
  lines.push(
    "",
    "Requests one at a time (latency µs, client and loopback included: min / p10 / median; ratio = first build's p10 over this one's)"
  )
  for (const op of OPERATIONS) {
    const names = Object.keys(result.sequential[op])
    const first = result.sequential[op][names[0]!]
    if (first === undefined) continue
    lines.push(`${op}: ${
      names.map((name) => {
        const s = result.sequential[op][name]!
        return `${name} ${Math.round(s.min)}/${Math.round(s.p10)}/${Math.round(s.p50)} (${
          (first.p10 / s.p10).toFixed(2)
        }x)`
      }).join(", ")
    }`)
  }
  return `${lines.join("\n")}\n\n${stepsReport(result.steps)}`
}
