/**
 * The webhooks package's tests run the real engine on a SQLite file (a fresh one per test: the dispatcher's queue
 * spans every workspace of a database), with the transport and the resolver swapped as each test needs.
 */
import {
  Actor,
  type ClaimedDelivery,
  CreateApiToken,
  CreateWebhook,
  CreateWorkspace,
  DeliveryQueue,
  EngineLive,
  type EngineService,
  Events,
  type EventType,
  HostResolver,
  ListWebhookDeliveries,
  Principal,
  type PrincipalShape,
  type ResolvedAddress,
  ResolveError,
  Tokens,
  Transactor,
  WebhookConfig,
  type WebhookDelivery,
  type WebhookEventType,
  type WebhookId,
  Webhooks,
  type WebhookSettings,
  type Workspace,
  type WorkspaceId,
  Workspaces
} from "@support-engine/core"
import { StorageLive, type StoragePorts } from "@support-engine/storage"
import { Clock, Context, DateTime, Duration, Effect, Layer, Queue, Ref } from "effect"
import { TestClock } from "effect/testing"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Dispatcher } from "../src/Dispatcher.js"
import { DnsHostResolver } from "../src/DnsHostResolver.js"
import {
  type TransportError,
  type TransportRequest,
  type TransportResponse,
  WebhookTransport
} from "../src/Transport.js"

export const dir = mkdtempSync(join(tmpdir(), "support-engine-webhooks-"))
let databases = 0
/** A new SQLite file. */
export const freshDatabaseUrl = () => `file:${join(dir, `test-${++databases}.db`)}`

export type TestEngine = EngineService | StoragePorts

/** DNS as the tests script it: `hooks.example.com` is a public address unless a test says otherwise. */
export const scriptedResolver = (answers: Record<string, ReadonlyArray<string>> = {}) =>
  Layer.succeed(HostResolver, {
    resolve: (hostname) => {
      const table: Record<string, ReadonlyArray<string>> = { "hooks.example.com": ["93.184.216.34"], ...answers }
      const found = table[hostname]
      return found === undefined
        ? Effect.fail(new ResolveError({ hostname, cause: "not in the script" }))
        : Effect.succeed(found.map((address): ResolvedAddress => ({ address, family: address.includes(":") ? 6 : 4 })))
    }
  })

/** One request the scripted transport received, and the time (Effect's `Clock`) it arrived. */
export interface Received {
  readonly request: TransportRequest
  readonly at: DateTime.Utc
  readonly body: Record<string, unknown>
}

export type Answer = (n: number, request: TransportRequest) => Effect.Effect<TransportResponse, TransportError>

export const answer = (status: number, retryAfter?: string): Effect.Effect<TransportResponse> =>
  Effect.succeed({ status, retryAfter, excerpt: `status ${status}` })

/** A transport that answers by script (`n` counts calls from 1) and records what it received, in order. */
export const scriptedTransport = (script: Answer) =>
  Effect.gen(function*() {
    const received = yield* Queue.unbounded<Received>()
    const calls = yield* Ref.make(0)
    const layer = Layer.succeed(WebhookTransport, {
      send: (request) =>
        Effect.gen(function*() {
          const n = yield* Ref.updateAndGet(calls, (c) => c + 1)
          const body = JSON.parse(request.body) as Record<string, unknown>
          yield* Queue.offer(received, { request, at: yield* DateTime.now, body })
          return yield* script(n, request)
        })
    })
    return { layer, received, calls } as const
  })

/** Settings for clock-driven tests: a long poll, so every wake-up comes from a due time or a signal. */
export const clockSettings: Partial<WebhookSettings> = { pollInterval: Duration.hours(1) }

/** The engine, the Webhooks service and its dependencies, on a fresh database. */
export const servicesLayer = (
  transport: Layer.Layer<WebhookTransport>,
  settings: Partial<WebhookSettings> = {},
  resolver: Layer.Layer<HostResolver> = scriptedResolver(),
  databaseUrl = freshDatabaseUrl()
) =>
  Webhooks.layerWithoutDependencies.pipe(
    Layer.provideMerge(Layer.mergeAll(WebhookConfig.layer(settings), resolver, transport)),
    Layer.provideMerge(EngineLive.pipe(Layer.provideMerge(StorageLive(databaseUrl)))),
    Layer.orDie
  )

/** The real transports, by name. */
export const TRANSPORTS = { HttpClient: WebhookTransport.HttpClient } as const

/** A real transport with the given settings and resolver, for a real receiver. */
export const realTransport = (
  settings: Partial<WebhookSettings>,
  resolver: Layer.Layer<HostResolver> = DnsHostResolver,
  transport: keyof typeof TRANSPORTS = "HttpClient"
) => TRANSPORTS[transport].pipe(Layer.provide(Layer.merge(WebhookConfig.layer(settings), resolver)))

/** The dispatcher alone, over services already in context. */
export const dispatcherLayer = Dispatcher.layerWithoutDependencies

/** Services plus a running dispatcher. */
export const withDispatcher = (
  transport: Layer.Layer<WebhookTransport>,
  settings: Partial<WebhookSettings> = {},
  resolver: Layer.Layer<HostResolver> = scriptedResolver()
) => dispatcherLayer.pipe(Layer.provideMerge(servicesLayer(transport, settings, resolver)))

/** A workspace and a write principal of it. */
export const makeWorkspace = (
  name = "Acme"
): Effect.Effect<{ readonly workspace: Workspace; readonly principal: PrincipalShape }, never, TestEngine> =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name }))
    const { token } = yield* (yield* Tokens).create(
      new CreateApiToken({ workspace_id: workspace.id, name: "test", abilities: ["external-api:write"] })
    )
    const principal: PrincipalShape = {
      workspaceId: workspace.id,
      organizationId: workspace.organization_id,
      abilities: ["external-api:write"],
      actor: Actor.apiToken(token.id)
    }
    return { workspace, principal }
  }).pipe(Effect.orDie)

export const as = (principal: PrincipalShape) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provideService(self, Principal, principal)

/** A webhook on `https://hooks.example.com/in` (a public address in the scripted DNS). */
export const subscribe = (events: ReadonlyArray<WebhookEventType> = ["*"], url = "https://hooks.example.com/in") =>
  Effect.flatMap(Webhooks, (webhooks) => webhooks.create(new CreateWebhook({ url, events })))

/** Records one event as the principal would through a service: in a transaction (D34). */
export const record = (type: EventType, data: Record<string, unknown>) =>
  Effect.flatMap(Transactor, (tx) => tx.withTransaction(Effect.flatMap(Events, (events) => events.record(type, data))))

/**
 * The dispatcher's fan-out step, for tests that run no dispatcher (issue 16 item 2): the events recorded so far get
 * their deliveries.
 */
export const fanOut = Effect.flatMap(DeliveryQueue, (queue) => queue.fanOut(1000))

/** Waits, in real time and with a deadline, until `condition` holds: for work other fibers do without a clock. */
export const eventually = <E, R>(condition: Effect.Effect<boolean, E, R>, what = "condition") =>
  Effect.gen(function*() {
    for (let i = 0; i < 1000; i++) {
      if (yield* condition) return
      yield* TestClock.withLive(Effect.sleep(Duration.millis(5)))
    }
    return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

/** The ends (epoch ms) of the sleeps now pending on the test's clock; provided by `recordingSleeps`. */
export class PendingSleeps extends Context.Service<
  PendingSleeps,
  { readonly ends: Effect.Effect<ReadonlyArray<number>> }
>()("@support-engine/webhooks/test/PendingSleeps") {}

/**
 * Runs `self` on the test's `TestClock`, wrapped to record when each pending sleep ends (Effect's `TestClock` does not
 * list them). It must wrap the layer that starts the dispatcher, so that the dispatcher sleeps on this clock.
 */
export const recordingSleeps = <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, PendingSleeps>> =>
  TestClock.testClockWith((clock) => {
    const ends: Array<number> = []
    const recording: TestClock.TestClock = {
      currentTimeMillisUnsafe: () => clock.currentTimeMillisUnsafe(),
      currentTimeNanosUnsafe: () => clock.currentTimeNanosUnsafe(),
      monotonicTimeNanosUnsafe: () => clock.monotonicTimeNanosUnsafe(),
      currentTimeMillis: clock.currentTimeMillis,
      currentTimeNanos: clock.currentTimeNanos,
      monotonicTimeNanos: clock.monotonicTimeNanos,
      adjust: (duration) => clock.adjust(duration),
      setTime: (timestamp) => clock.setTime(timestamp),
      withLive: (effect) => clock.withLive(effect),
      sleep: (duration) =>
        Effect.acquireUseRelease(
          Effect.sync(() => {
            const end = clock.currentTimeMillisUnsafe() + Duration.toMillis(duration)
            ends.push(end)
            return end
          }),
          () => clock.sleep(duration),
          (end) => Effect.sync(() => ends.splice(ends.indexOf(end), 1))
        )
    }
    return self.pipe(
      Effect.provideService(PendingSleeps, { ends: Effect.sync(() => [...ends]) }),
      Effect.provideService(Clock.Clock, recording)
    )
  })

/**
 * Waits until a fiber sleeps on the test clock until `until` holds of its end. The dispatcher sleeps only once it
 * has fanned out, claimed and sent what was due and found its next due time: a sleep of it ending at `millis` is
 * proof that nothing was due before `millis` when it last looked.
 */
export const asleep = (what: string, until: (end: number) => boolean) =>
  Effect.gen(function*() {
    const { ends } = yield* PendingSleeps
    yield* eventually(Effect.map(ends, (pending) => pending.some(until)), what)
  })

/** A fiber asleep until exactly `millis` (epoch ms). */
export const asleepUntil = (millis: number) => asleep(`a fiber asleep until ${millis} ms`, (end) => end === millis)

/** One call the dispatcher made to its queue: when it started and returned, in the probe's sequence. */
export interface QueueCall {
  readonly startedAt: number
  readonly endedAt: number
}

/**
 * What the dispatcher asked its queue, for latches that prove it has looked at the queue since a given point:
 * `mark()` returns a point in the sequence, and every call started after it has a greater `startedAt`.
 */
export interface QueueProbe {
  readonly mark: () => number
  /** `claimDue` calls, once returned, with what they claimed. */
  readonly claims: ReadonlyArray<QueueCall & { readonly claimed: ReadonlyArray<ClaimedDelivery> }>
  /** `completeAndClaim` calls, once returned: the attempts recorded, and the replacements claimed. */
  readonly records: ReadonlyArray<
    QueueCall & { readonly completed: ReadonlyArray<ClaimedDelivery>; readonly claimed: ReadonlyArray<ClaimedDelivery> }
  >
  /** `changedWorkspaces` calls (the dispatcher asking what woke it), once returned. */
  readonly looks: ReadonlyArray<QueueCall & { readonly touched: ReadonlySet<WorkspaceId> | "any" }>
}

/** The real queue, with the calls the dispatcher makes recorded in a probe. */
const probedQueue = () => {
  let sequence = 0
  const claims: Array<QueueProbe["claims"][number]> = []
  const records: Array<QueueProbe["records"][number]> = []
  const looks: Array<QueueProbe["looks"][number]> = []
  const probe: QueueProbe = { mark: () => ++sequence, claims, records, looks }
  /** Runs `call`, then records its result with the sequence numbers of its start and return. */
  const recorded = <A, E>(call: Effect.Effect<A, E>, store: (result: A, at: QueueCall) => void) =>
    Effect.suspend(() => {
      const startedAt = ++sequence
      return Effect.tap(call, (result) => Effect.sync(() => store(result, { startedAt, endedAt: ++sequence })))
    })
  const layer = Layer.effect(
    DeliveryQueue,
    Effect.map(DeliveryQueue, (queue) =>
      DeliveryQueue.of({
        ...queue,
        claimDue: (request) => recorded(queue.claimDue(request), (claimed, at) => claims.push({ ...at, claimed })),
        completeAndClaim: (completions, now, request) =>
          recorded(
            queue.completeAndClaim(completions, now, request),
            (result, at) =>
              records.push({ ...at, completed: completions.map((c) => c.claimed), claimed: result.claimed })
          ),
        changedWorkspaces: recorded(queue.changedWorkspaces, (touched, at) => looks.push({ ...at, touched }))
      }))
  )
  return { layer, probe } as const
}

/** Services plus a running dispatcher whose queue calls are recorded in the probe returned. */
export const withProbedDispatcher = (
  transport: Layer.Layer<WebhookTransport>,
  settings: Partial<WebhookSettings> = {},
  resolver: Layer.Layer<HostResolver> = scriptedResolver()
) => {
  const { layer, probe } = probedQueue()
  return {
    probe,
    layer: dispatcherLayer.pipe(Layer.provide(layer), Layer.provideMerge(servicesLayer(transport, settings, resolver)))
  } as const
}

/** The next request the transport receives (a real-time deadline, so a missing attempt fails instead of hanging). */
export const next = (received: Queue.Queue<Received>) =>
  TestClock.withLive(
    Queue.take(received).pipe(Effect.timeoutOrElse({
      duration: Duration.seconds(5),
      orElse: () => Effect.fail(new Error("no attempt arrived"))
    }))
  )

/** The webhook's deliveries, newest first. */
export const deliveriesOf = (principal: PrincipalShape, webhookId: WebhookId) =>
  Effect.flatMap(Webhooks, (w) => w.deliveries(webhookId, new ListWebhookDeliveries({ per_page: 100 }))).pipe(
    Effect.map((page) => page.data),
    as(principal),
    Effect.orDie
  )

/** The webhook as the service reads it. */
export const webhookOf = (principal: PrincipalShape, webhookId: WebhookId) =>
  Effect.flatMap(Webhooks, (w) => w.get(webhookId)).pipe(as(principal), Effect.orDie)

/** Waits until the webhook's deliveries pass `check`. */
export const attemptsAre = (
  principal: PrincipalShape,
  webhookId: WebhookId,
  check: (ds: ReadonlyArray<WebhookDelivery>) => boolean
) => eventually(Effect.map(deliveriesOf(principal, webhookId), check), "the deliveries to reach the expected state")
