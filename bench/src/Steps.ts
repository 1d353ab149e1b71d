/**
 * Runtime steps per request, for `pnpm bench --builds`: each checkout's standalone server with a step
 * counter (servers/steps.ts, bundled inside that checkout so that it runs that checkout's code), sent the same
 * requests one at a time. Unlike a rate or a CPU time, the count is the same on a quiet and on a busy machine.
 */
import { execFileSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import type { Build } from "./Builds.js"
import { operationRequests } from "./Fixtures.js"
import { type Operation, OPERATIONS } from "./InProcess.js"
import type { HttpRequestSpec } from "./Load.js"
import type { Seeded } from "./Seed.js"
import { startBundle, stopServer } from "./Servers.js"

const entry = resolve(dirname(fileURLToPath(import.meta.url)), "servers/steps.ts")

export interface StepCount {
  readonly steps: number
  readonly fibers: number
}

export type StepsResult = Record<Operation, Record<string, StepCount>>

const send = async (baseUrl: string, spec: HttpRequestSpec) => {
  const response = await fetch(`${baseUrl}${spec.path()}`, {
    method: spec.method,
    headers: spec.headers,
    ...(spec.body === undefined ? {} : { body: spec.body() })
  })
  await response.arrayBuffer()
  if (response.status >= 300) throw new Error(`${spec.method} answered ${response.status}`)
}

/** Counts one checkout's steps per request of each operation into `result`. */
const countBuild = async (
  build: Build,
  seeded: Seeded,
  requests: number,
  result: Record<Operation, Record<string, StepCount>>,
  progress: (message: string) => void
) => {
  // bench/build is ignored by git in every checkout: the entry is copied there and bundled with its code.
  const copied = join(build.dir, "bench/build/steps-entry.ts")
  mkdirSync(dirname(copied), { recursive: true })
  copyFileSync(entry, copied)
  execFileSync(process.execPath, ["packages/cli/build.mjs", "bench/build/servers", copied], {
    cwd: build.dir,
    stdio: "inherit"
  })
  const running = await startBundle(
    "engine",
    [join(build.dir, "bench/build/servers/steps-entry.mjs")],
    build.dir,
    seeded.file,
    progress
  )
  const ask = (message: string) =>
    new Promise<StepCount>((ok) => {
      running.child.once("message", (answer) => ok(answer as StepCount))
      running.child.send(message)
    })
  try {
    const baseUrl = `http://127.0.0.1:${running.port}`
    for (const op of OPERATIONS) {
      const spec = operationRequests(seeded)[op]
      for (let i = 0; i < requests; i++) await send(baseUrl, spec)
      await ask("start")
      for (let i = 0; i < requests; i++) await send(baseUrl, spec)
      const counted = await ask("stop")
      result[op][build.name] = { steps: counted.steps / requests, fibers: counted.fibers / requests }
      progress(
        `  steps ${op.padEnd(6)} ${build.name.padEnd(12)} ${(counted.steps / requests).toFixed(1)} per request`
      )
    }
  } finally {
    await stopServer(running)
  }
}

/** The Effect version the checkout's HTTP package resolves. */
const effectVersion = (dir: string): string => {
  const file = join(dir, "packages/http/node_modules/effect/package.json")
  if (!existsSync(file)) return "unknown"
  const parsed: unknown = JSON.parse(readFileSync(file, "utf8"))
  return typeof parsed === "object" && parsed !== null && "version" in parsed && typeof parsed.version === "string"
    ? parsed.version
    : "unknown"
}

/** Steps and fibers per request of each operation, `requests` sequential requests after as many to warm up. */
export const stepsPhase = async (
  builds: ReadonlyArray<{ readonly build: Build; readonly seeded: Seeded }>,
  requests: number,
  progress: (message: string) => void
): Promise<StepsResult> => {
  const result = Object.fromEntries(OPERATIONS.map((op) => [op, {}])) as Record<Operation, Record<string, StepCount>>
  for (const { build, seeded } of builds) {
    const effect = effectVersion(build.dir)
    if (!effect.startsWith("4.")) {
      progress(`  steps ${build.name}: not counted (Effect ${effect}; the counter is written against Effect 4)`)
      continue
    }
    try {
      await countBuild(build, seeded, requests, result, progress)
    } catch (error) {
      // The counter is written against Effect 4's runtime; a checkout on another Effect has no steps to compare.
      progress(`  steps ${build.name}: not counted (${error instanceof Error ? error.message.split("\n")[0] : error})`)
    }
  }
  return result
}

export const stepsReport = (result: StepsResult): string => {
  const lines = ["Runtime steps per request (Effect steps counted by a supervisor; the same on a busy machine)"]
  for (const op of OPERATIONS) {
    const names = Object.keys(result[op])
    const first = result[op][names[0]!]
    if (first === undefined) continue
    lines.push(
      `${op}: ${
        names.map((name) => {
          const count = result[op][name]!
          return `${name} ${count.steps.toFixed(1)} (${(count.steps / first.steps).toFixed(2)}x)`
        }).join(", ")
      }`
    )
  }
  return lines.join("\n")
}
