/**
 * In-process measurements in one process: the raw prepared statements, the Effect services (one Effect loop on
 * a `ManagedRuntime` over `supportEngineLayer` without its dispatcher, with tracing on as Effect's default has it,
 * and off as a host that collects no traces runs it: core's Tracing.ts), and the Promise facade (`createSupportEngine`, one awaited call
 * per operation; tracing off by design). Every read includes turning the result into the JSON text a response
 * would carry.
 */
import {
  Actor,
  ApiTokenId,
  Conversation,
  Conversations,
  CreateConversation,
  Customer,
  CustomerId,
  Customers,
  ListCustomers,
  OrganizationId,
  PageSchema,
  Principal,
  WorkspaceId
} from "@support-engine/core"
import { createSupportEngine } from "@support-engine/engine"
import { supportEngineLayer } from "@support-engine/engine"
import { Effect, ManagedRuntime, Schema } from "effect"
import { performance } from "node:perf_hooks"
import { pageFor } from "./Fixtures.js"
import { percentile } from "./Load.js"
import { openRaw } from "./RawStore.js"
import type { Seeded } from "./Seed.js"

export type Operation = "get" | "list" | "create"
export const OPERATIONS: ReadonlyArray<Operation> = ["get", "list", "create"]

export interface Budget {
  readonly ms: number
  readonly maxOps: number
}

export interface Rate {
  readonly opsPerSecond: number
  readonly ops: number
}

export { pageFor } from "./Fixtures.js"

const rateOf = (ops: number, elapsed: number): Rate => ({ opsPerSecond: ops / (elapsed / 1000), ops })

/** Runs a synchronous operation for the budget (bounded in count and time). */
const syncRate = (budget: Budget, op: (i: number) => void): Rate => {
  const start = performance.now()
  let i = 0
  while (i < budget.maxOps && (i & 63 || performance.now() - start < budget.ms)) op(i++)
  return rateOf(i, performance.now() - start)
}

const asyncRate = async (budget: Budget, op: (i: number) => Promise<unknown>): Promise<Rate> => {
  const start = performance.now()
  let i = 0
  while (i < budget.maxOps && performance.now() - start < budget.ms) await op(i++)
  return rateOf(i, performance.now() - start)
}

const effectRate = <E, R>(budget: Budget, op: (i: number) => Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    const start = performance.now()
    let i = 0
    while (i < budget.maxOps && performance.now() - start < budget.ms) yield* op(i++)
    return rateOf(i, performance.now() - start)
  })

const encodeCustomer = Schema.encodeEffect(Customer)
const encodePage = Schema.encodeEffect(PageSchema(Customer))
const encodeConversation = Schema.encodeEffect(Conversation)

/** The principal an API token of the seeded workspace stands for. */
export const principalOf = (seeded: Seeded, organizationId: string) => ({
  workspaceId: WorkspaceId.make(seeded.workspaceId),
  organizationId: OrganizationId.make(organizationId),
  abilities: ["external-api:write" as const],
  actor: Actor.apiToken(ApiTokenId.make(seeded.token.slice(0, 36)))
})

export const effectOps = {
  get: (id: string) =>
    Effect.flatMap(Customers, (s) => s.get(CustomerId.make(id))).pipe(
      Effect.flatMap(encodeCustomer),
      Effect.map((json) => JSON.stringify(json))
    ),
  list: (page: number) =>
    Effect.flatMap(Customers, (s) => s.list(new ListCustomers({ page, per_page: 15 }))).pipe(
      Effect.flatMap(encodePage),
      Effect.map((json) => JSON.stringify(json))
    ),
  create: (customerId: string) =>
    Effect.flatMap(
      Conversations,
      (s) => s.create(new CreateConversation({ customer_id: CustomerId.make(customerId), subject: "Bench" }))
    ).pipe(Effect.flatMap(encodeConversation), Effect.map((json) => JSON.stringify(json)))
}

type EngineOps = Customers | Conversations | Principal

export type InProcessResult = Record<Operation, { raw: Rate; effect: Rate; untraced: Rate; facade: Rate }>

export const inProcess = async (seeded: Seeded, budget: Budget): Promise<InProcessResult> => {
  const ids = seeded.sampleIds
  const pick = (i: number) => ids[(i * 7919) % ids.length]!
  const raw = openRaw(seeded.file)
  const rawPrincipal = raw.authenticate(`Bearer ${seeded.token}`)
  if (rawPrincipal === null) throw new Error("seeded token does not authenticate")
  const url = new URL("http://127.0.0.1/v1/customers?per_page=15")
  const rawOps = {
    get: (i: number) => void JSON.stringify(raw.getCustomer(rawPrincipal.workspaceId, pick(i))),
    list: (i: number) => void JSON.stringify(raw.listCustomers(rawPrincipal.workspaceId, pageFor(i), 15, url)),
    create: (i: number) =>
      void JSON.stringify(raw.createConversation(rawPrincipal, { customer_id: pick(i), subject: "Bench" }))
  }

  const runtime = ManagedRuntime.make(supportEngineLayer({ databaseUrl: `file:${seeded.file}`, dispatcher: false }))
  const principal = principalOf(seeded, rawPrincipal.organizationId)
  const engine = createSupportEngine({ databaseUrl: `file:${seeded.file}` })
  const api = await engine.withToken(seeded.token)
  const facadeOps = {
    get: (i: number) => api.customers.get(pick(i)).then((c) => JSON.stringify(c)),
    list: (i: number) => api.customers.list({ page: pageFor(i), per_page: 15 }).then((p) => JSON.stringify(p)),
    create: (i: number) =>
      api.conversations.create({ customer_id: pick(i), subject: "Bench" }).then((c) => JSON.stringify(c))
  }
  const effectOf = (op: Operation) => (i: number): Effect.Effect<string, unknown, EngineOps> =>
    op === "get" ? effectOps.get(pick(i)) : op === "list" ? effectOps.list(pageFor(i)) : effectOps.create(pick(i))

  const warm: Budget = { ms: Math.min(300, budget.ms / 3), maxOps: budget.maxOps }
  const result = {} as InProcessResult
  try {
    for (const op of OPERATIONS) {
      const runEffect = (b: Budget, tracing = true) =>
        runtime.runPromise(
          effectRate(b, effectOf(op)).pipe(
            Effect.provideService(Principal, principal),
            Effect.withTracerEnabled(tracing)
          )
        )
      // Warm each path (JIT, statement caches), then measure; alternating keeps drift from favouring one side.
      syncRate(warm, rawOps[op])
      await runEffect(warm)
      await runEffect(warm, false)
      await asyncRate(warm, facadeOps[op])
      result[op] = {
        raw: syncRate(budget, rawOps[op]),
        effect: await runEffect(budget),
        untraced: await runEffect(budget, false),
        facade: await asyncRate(budget, facadeOps[op])
      }
    }
  } finally {
    await engine.dispose()
    await runtime.dispose()
    raw.close()
  }
  return result
}

/** Latency of single operations (ms, p50 and p99 of `count` sequential calls), raw and through the services. */
export interface Latency {
  readonly p50: number
  readonly p99: number
}

export type ScaleProbe = "get" | "list page 1" | "list page 5000"
export type ScaleResult = Record<ScaleProbe, { raw: Latency; effect: Latency }>

const latencyOf = (samples: Array<number>): Latency => {
  samples.sort((a, b) => a - b)
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) }
}

export const scaleLatency = async (seeded: Seeded, count: number): Promise<ScaleResult> => {
  const ids = seeded.sampleIds
  const pick = (i: number) => ids[(i * 7919) % ids.length]!
  const raw = openRaw(seeded.file)
  const rawPrincipal = raw.authenticate(`Bearer ${seeded.token}`)
  if (rawPrincipal === null) throw new Error("seeded token does not authenticate")
  const url = new URL("http://127.0.0.1/v1/customers?per_page=15")
  const runtime = ManagedRuntime.make(supportEngineLayer({ databaseUrl: `file:${seeded.file}`, dispatcher: false }))
  const principal = principalOf(seeded, rawPrincipal.organizationId)
  const probes: Record<
    ScaleProbe,
    { raw: (i: number) => unknown; effect: (i: number) => Effect.Effect<unknown, unknown, EngineOps> }
  > = {
    "get": {
      raw: (i) => JSON.stringify(raw.getCustomer(rawPrincipal.workspaceId, pick(i))),
      effect: (i) => effectOps.get(pick(i))
    },
    "list page 1": {
      raw: () => JSON.stringify(raw.listCustomers(rawPrincipal.workspaceId, 1, 15, url)),
      effect: () => effectOps.list(1)
    },
    "list page 5000": {
      raw: () => JSON.stringify(raw.listCustomers(rawPrincipal.workspaceId, 5000, 15, url)),
      effect: () => effectOps.list(5000)
    }
  }
  const result = {} as ScaleResult
  try {
    for (const [name, probe] of Object.entries(probes) as Array<[ScaleProbe, (typeof probes)[ScaleProbe]]>) {
      const rawSamples: Array<number> = []
      for (let i = 0; i < count * 2; i++) {
        const t = performance.now()
        probe.raw(i)
        // The first half warms up.
        if (i >= count) rawSamples.push(performance.now() - t)
      }
      const effectSamples = await runtime.runPromise(
        Effect.gen(function*() {
          const samples: Array<number> = []
          for (let i = 0; i < count * 2; i++) {
            const t = performance.now()
            yield* probe.effect(i)
            if (i >= count) samples.push(performance.now() - t)
          }
          return samples
        }).pipe(Effect.provideService(Principal, principal))
      )
      result[name] = { raw: latencyOf(rawSamples), effect: latencyOf(effectSamples) }
    }
  } finally {
    await runtime.dispose()
    raw.close()
  }
  return result
}
