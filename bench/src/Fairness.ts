/**
 * `pnpm bench --fairness`: what a workspace whose 20 webhooks point at a receiver that never
 * answers costs everyone else, in one run and one process (the engine's services and its dispatcher, with the
 * default limits: 64 attempts in flight, 32 per workspace, 16 per webhook; real undici to receivers on 127.0.0.1).
 *
 * - Latency: B's one webhook points at a receiver that answers 200 at once. B records events one after another;
 *   each sample is the time from the event's commit to its delivery reaching the receiver. First with A idle (its 20
 *   webhooks exist, no events), then with A busy: a backlog of A's deliveries to the silent receiver, its 32 slots
 *   taken, and A still recording events during the samples.
 * - Write throughput: customers created one after another (each records `customer.created`) in a workspace with no
 *   webhook and in one with 20 webhooks subscribed to everything (on the silent receiver), in alternating rounds.
 *   Each measure ends once the fan-out of its writes is done (deliveries are made after the commit, in batches),
 *   so the deferred work is counted in the round that caused it.
 */
import {
  Actor,
  ApiTokenId,
  CreateCustomer,
  CreateWebhook,
  CreateWorkspace,
  Customers,
  DeliveryQueue,
  Events,
  Principal,
  type PrincipalShape,
  Transactor,
  Webhooks,
  Workspaces
} from "@support-engine/core"
import { supportEngineLayer } from "@support-engine/engine"
import { Effect, Fiber, Layer, ManagedRuntime, References, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { loadavg } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { percentile } from "./Load.js"

export interface FairnessSettings {
  /** B's latency samples per scenario. */
  readonly samples: number
  /** A's events recorded before B's samples with A busy (20 deliveries each). */
  readonly backlogEvents: number
  /** The pause between two of A's events during those samples. */
  readonly busyEveryMs: number
  /** Write throughput: rounds (each measures both workspaces, alternating which goes first) and ms per measure. */
  readonly rounds: number
  readonly measureMs: number
}

interface Latency {
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
}

export interface FairnessResult {
  readonly database: string
  readonly settings: FairnessSettings
  readonly load: { readonly before: ReadonlyArray<number>; readonly after: ReadonlyArray<number> }
  readonly latency: {
    readonly idle: Latency
    readonly busy: Latency
    readonly ratioP50: number
    readonly ratioP99: number
  }
  /** A's requests the silent receiver had received when B's busy samples ended (it answers none). */
  readonly silentReceived: number
  readonly throughput: {
    readonly none: number
    readonly twenty: number
    readonly ratio: number
    readonly rounds: ReadonlyArray<{ readonly none: number; readonly twenty: number }>
  }
}

const listen = (server: Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

const latencyOf = (samples: ReadonlyArray<number>): Latency => {
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? 0
  }
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/**
 * `databaseUrl`: SQLite in `dir` when absent; a `postgres://` URL runs the same phase on an empty PostgreSQL
 * database (`--database-url`).
 */
export const fairnessPhase = async (
  dir: string,
  settings: FairnessSettings,
  progress: (message: string) => void,
  databaseUrl = `file:${join(dir, "fairness.db")}`
): Promise<FairnessResult> => {
  const loadBefore = loadavg()
  // The silent receiver reads each request and never answers; the fast one answers 200 at once and tells the
  // waiting sample when the delivery of its event arrived.
  let silentReceived = 0
  const silent = createServer(() => {
    silentReceived++
  })
  const arrivals = new Map<string, (at: number) => void>()
  const fast = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const at = performance.now()
      res.writeHead(200, { "content-length": "0" })
      res.end()
      const eventId = req.headers["x-service-event-id"]
      if (typeof eventId === "string") arrivals.get(eventId)?.(at)
    })
  })
  fast.keepAliveTimeout = 60_000
  const [silentPort, fastPort] = [await listen(silent), await listen(fast)]

  // The engine with its dispatcher on the undici transport, private targets allowed (the receivers are on loopback).
  const stack = supportEngineLayer({ databaseUrl, webhooks: { allowPrivate: true } })
  // No log lines: B's deliveries would each write one to this terminal, which is not what is measured.
  const runtime = ManagedRuntime.make(stack.pipe(Layer.provide(Layer.succeed(References.MinimumLogLevel, "None"))))
  try {
    const workspace = (name: string, hooks: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const created = yield* (yield* Workspaces).create(new CreateWorkspace({ name }))
        const principal: PrincipalShape = {
          workspaceId: created.id,
          organizationId: created.organization_id,
          abilities: ["external-api:write"],
          actor: Actor.apiToken(ApiTokenId.make(randomUUID()))
        }
        for (const url of hooks) {
          yield* (yield* Webhooks).create(new CreateWebhook({ url, events: ["*"] })).pipe(
            Effect.provideService(Principal, principal)
          )
        }
        return principal
      })
    const silentHooks = Array.from({ length: 20 }, (_, i) => `http://127.0.0.1:${silentPort}/a/${i}`)
    const a = await runtime.runPromise(workspace("A", silentHooks))
    const b = await runtime.runPromise(workspace("B", [`http://127.0.0.1:${fastPort}/b`]))
    const none = await runtime.runPromise(workspace("No webhooks", []))

    const recordAs = (principal: PrincipalShape, i: number) =>
      Effect.gen(function*() {
        const tx = yield* Transactor
        const events = yield* Events
        return yield* tx.withTransaction(events.record("agent.deleted", { id: `${i}` }))
      }).pipe(Effect.provideService(Principal, principal))

    /** B's samples: commit of an event to its delivery reaching the fast receiver, one event at a time. */
    const sampleB = async (count: number) => {
      const samples: Array<number> = []
      for (let i = 0; i < count; i++) {
        const event = await runtime.runPromise(recordAs(b, i))
        const committed = performance.now()
        const arrived = await new Promise<number>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("B's delivery did not arrive within 30 s")), 30_000)
          arrivals.set(event.id, (at) => {
            clearTimeout(timer)
            resolve(at)
          })
        })
        arrivals.delete(event.id)
        samples.push(arrived - committed)
      }
      return samples
    }

    progress(`fairness: B's delivery latency with A idle (${settings.samples} events)`)
    await sampleB(Math.min(20, settings.samples)) // warm-up: connections, statement caches
    const idle = latencyOf(await sampleB(settings.samples))

    progress(`fairness: A's backlog (${settings.backlogEvents} events to 20 silent webhooks), then B again`)
    for (let i = 0; i < settings.backlogEvents; i++) await runtime.runPromise(recordAs(a, i))
    const busyWriter = runtime.runFork(
      recordAs(a, -1).pipe(Effect.repeat(Schedule.spaced(settings.busyEveryMs)))
    )
    const waitStart = performance.now()
    while (silentReceived < 32 && performance.now() - waitStart < 10_000) await new Promise((r) => setTimeout(r, 10))
    const busy = latencyOf(await sampleB(settings.samples))
    const received = silentReceived
    await runtime.runPromise(Fiber.interrupt(busyWriter))

    progress(
      `fairness: writes with 20 webhooks per event vs none (${settings.rounds} rounds of ${settings.measureMs} ms)`
    )
    let n = 0
    const finishFanOut = Effect.gen(function*() {
      const queue = yield* DeliveryQueue
      let made = 200
      while (made > 0) made = yield* queue.fanOut(200)
    })
    const writes = async (principal: PrincipalShape) => {
      const start = performance.now()
      let ops = 0
      while (performance.now() - start < settings.measureMs) {
        await runtime.runPromise(
          Effect.flatMap(Customers, (c) => c.create(new CreateCustomer({ email: `bench-${n++}@example.com` }))).pipe(
            Effect.provideService(Principal, principal)
          )
        )
        ops++
      }
      // The deliveries of these writes are made by the dispatcher's fan-out step, which may still
      // have events waiting (a workspace at its in-flight limit is fanned out at the next due time or poll). They
      // are made now and the time counts: the rate is the one the writes and their fan-out sustain together.
      await runtime.runPromise(finishFanOut)
      return ops / ((performance.now() - start) / 1000)
    }
    await writes(none) // warm-up
    const rounds: Array<{ none: number; twenty: number }> = []
    for (let round = 0; round < settings.rounds; round++) {
      if (round % 2 === 0) {
        const first = await writes(none)
        rounds.push({ none: first, twenty: await writes(a) })
      } else {
        const first = await writes(a)
        rounds.push({ twenty: first, none: await writes(none) })
      }
      const last = rounds[rounds.length - 1]!
      progress(`  round ${round + 1}: ${last.none.toFixed(0)} writes/s with none, ${last.twenty.toFixed(0)} with 20`)
    }
    const noneRate = median(rounds.map((r) => r.none))
    const twentyRate = median(rounds.map((r) => r.twenty))
    return {
      database: databaseUrl.startsWith("postgres") ? "postgresql" : "sqlite",
      settings,
      load: { before: loadBefore, after: loadavg() },
      latency: { idle, busy, ratioP50: busy.p50 / idle.p50, ratioP99: busy.p99 / idle.p99 },
      silentReceived: received,
      throughput: { none: noneRate, twenty: twentyRate, ratio: twentyRate / noneRate, rounds }
    }
  } finally {
    await runtime.dispose()
    await close(silent)
    await close(fast)
  }
}

export const fairnessReport = (r: FairnessResult): string => {
  const ms = (l: Latency) =>
    `p50 ${l.p50.toFixed(2)} ms, p90 ${l.p90.toFixed(2)}, p99 ${l.p99.toFixed(2)}, max ${l.max.toFixed(2)}`
  return [
    `Fair delivery on ${r.database} (load average before ${r.load.before.map((l) => l.toFixed(2)).join(" ")}, ` +
    `after ${r.load.after.map((l) => l.toFixed(2)).join(" ")})`,
    `  B's delivery latency, A idle: ${ms(r.latency.idle)}`,
    `  B's delivery latency, A's 20 webhooks silent (the silent receiver got ${r.silentReceived} of A's attempts): ${
      ms(r.latency.busy)
    }`,
    `  ratio busy/idle: p50 ${r.latency.ratioP50.toFixed(2)}x, p99 ${r.latency.ratioP99.toFixed(2)}x (must be <= 2)`,
    `  writes/s, no webhook: ${r.throughput.none.toFixed(0)}; 20 webhooks per event: ${
      r.throughput.twenty.toFixed(0)
    }; ratio ${r.throughput.ratio.toFixed(2)}x (must be >= 0.5)`
  ].join("\n")
}
