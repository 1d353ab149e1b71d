/**
 * `makeTestEngine`: the whole engine for a host's tests, the engine package's `supportEngineLayer` with the kit's
 * parts. Core's services on SQLite (an in-memory database unless a URL is given), the webhook subscriptions service,
 * the dispatcher delivering to the in-process `RecordingReceiver`, and the training and reply workers running, all
 * on the kit's test clock (EngineClock.ts, which Advance.ts moves): its background fibers sleep on it, and so does
 * whatever runs on the layer (`Effect.provide(makeTestEngine())` in an `it.effect`, or `it.layer`).
 * `PromiseTestEngine.ts` is its Promise twin for plain vitest.
 *
 * Ids come from `IdGenerator.Deterministic` (streams seeded from Effect's `Random`), so a seeded `Random` gives the
 * same ids every run; a host that reopens the engine passes `ids` of its own to keep one set of streams.
 */
import {
  HostResolver,
  IdGenerator,
  LocalAnswerModel,
  type TrainingProcessor,
  WebhookConfig,
  type WebhookSettings
} from "@support-engine/core"
import { supportEngineLayer } from "@support-engine/engine"
import { type StoragePorts, StorageWithIds } from "@support-engine/storage"
import { AttemptBatchWindow } from "@support-engine/webhooks"
import { Duration, Effect, Layer } from "effect"
import type { Socket } from "node:net"
import { engineClock } from "./Advance.js"
import { RecordingReceiver } from "./RecordingReceiver.js"

export interface TestEngineOptions {
  /** Where the data lives; default a private in-memory SQLite database. A file URL lets a test reopen it. */
  readonly databaseUrl?: string
  /** Webhook settings over the test defaults (private targets allowed, a one-day fallback poll). */
  readonly webhooks?: Partial<WebhookSettings>
  /** The host's training processor; default completes every item at once. */
  readonly processor?: Layer.Layer<TrainingProcessor>
  /**
   * A receiver made elsewhere, to keep its record across engines (the simulator closes and reopens the engine on
   * the same database and wants one log of everything its receivers got).
   */
  readonly receiver?: RecordingReceiver["Service"]
  /**
   * Services put between storage and core, over the ones storage provides: a decorated port (the simulator plants
   * bugs this way), or an `AnswerModel` of the test's own.
   */
  readonly overrides?: Layer.Layer<never, never, StoragePorts>
  /**
   * The id generator, default `IdGenerator.Deterministic`. The simulator passes `IdGenerator.fromStreams` over
   * streams of its own, which outlive each engine it opens and which it moves to the next turn between steps.
   */
  readonly ids?: Layer.Layer<IdGenerator>
  /**
   * On PostgreSQL, the sockets the client connects with (storage's `clientLayer`): the simulator watches its engine's
   * queries through them (PgTraffic.ts).
   */
  readonly pgSocket?: () => Socket
  /**
   * How the dispatcher gathers the attempts that finish together before recording them (webhooks'
   * `AttemptBatchWindow`). On PostgreSQL the simulator passes Advance.ts's `serverDatabase(...).batchWindow`, so
   * what a 410 cancels does not depend on the server's timing.
   */
  readonly attemptBatchWindow?: Effect.Effect<void>
}

/**
 * Every host name resolves to loopback: nothing is connected to (the receiver is in process), and webhook URLs in
 * tests need not name real hosts.
 */
const loopbackResolver = Layer.succeed(HostResolver, {
  resolve: () => Effect.succeed([{ address: "127.0.0.1", family: 4 as const }])
})

/**
 * The fallback polls of the dispatcher, the training worker and the reply worker look for work other processes
 * wrote; a test has one process, so they are a day: every wake-up is then a due time or a signal, and jumping the
 * clock hours ahead does not run thousands of polls.
 */
const QUIET_POLL = Duration.days(1)

/**
 * The engine package's one assembly with the kit's parts: storage with deterministic ids, the local model (whatever
 * `SUPPORT_AI_PROVIDER` says), the recording receiver as the dispatcher's transport, the loopback resolver and quiet
 * polls. No retention pruner and no previous-secret sweep: a test that moves the clock a day would otherwise wake
 * them, and `advanceToNext` would stop at their wake-ups.
 */
export const makeTestEngine = (options: TestEngineOptions = {}) => {
  // One generator for the services and the repositories (delivery ids), so a seeded Random fixes every id.
  const ids = options.ids ?? IdGenerator.Deterministic
  const storage = StorageWithIds(
    options.databaseUrl ?? "file::memory:",
    ids,
    options.pgSocket === undefined ? {} : { pgSocket: options.pgSocket }
  )
  const webhooks: Partial<WebhookSettings> = { allowPrivate: true, pollInterval: QUIET_POLL, ...options.webhooks }
  // One receiver layer, used by the transport inside the engine and kept in the test's context: a layer is built
  // once per build however many times it is named, so both are the same receiver.
  const receiver = options.receiver === undefined
    ? RecordingReceiver.layer.pipe(Layer.provide(WebhookConfig.layer(webhooks)))
    : Layer.succeed(RecordingReceiver, options.receiver)
  const engine = supportEngineLayer({ webhooks, retention: false }, {
    storage,
    ids,
    answerModel: LocalAnswerModel,
    ...(options.processor === undefined ? {} : { processor: options.processor }),
    ...(options.overrides === undefined ? {} : { overrides: options.overrides }),
    transport: RecordingReceiver.transport.pipe(Layer.provide(receiver)),
    hostResolver: loopbackResolver,
    pollInterval: QUIET_POLL,
    previousSecretSweep: false
  })
  const batchWindow = options.attemptBatchWindow === undefined
    ? Layer.empty
    : Layer.succeed(AttemptBatchWindow, options.attemptBatchWindow)
  return Layer.merge(Layer.provide(engine, batchWindow), receiver).pipe(
    // Under everything: storage's timestamps, the workers' sleeps and the test's own moves read one clock.
    Layer.provideMerge(engineClock),
    Layer.orDie
  )
}

export type TestEngine = Layer.Success<ReturnType<typeof makeTestEngine>>
