/**
 * `makeTestEngine`: the whole engine for a host's tests. Core's services on SQLite (an in-memory database unless a
 * URL is given), the webhook subscriptions service, the dispatcher delivering to the in-process `RecordingReceiver`,
 * and the training worker running, all on the kit's test clock (EngineClock.ts, which Advance.ts moves): its
 * background fibers sleep on it, and so does whatever runs on the layer (`Effect.provide(makeTestEngine())` in an
 * `it.effect`, or `it.layer`). `PromiseTestEngine.ts` is its Promise twin for plain vitest.
 *
 * Ids come from `IdGenerator.Deterministic` (streams seeded from Effect's `Random`), so a seeded `Random` gives the
 * same ids every run; a host that reopens the engine passes `ids` of its own to keep one set of streams.
 */
import {
  EngineServices,
  HostResolver,
  IdGenerator,
  ReplyWorker,
  TrainingProcessor,
  TrainingWorker,
  WebhookConfig,
  Webhooks,
  type WebhookSettings
} from "@support-engine/core"
import { type StoragePorts, StorageWithIds } from "@support-engine/storage"
import { Dispatcher } from "@support-engine/webhooks"
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
}

/**
 * Every host name resolves to loopback: nothing is connected to (the receiver is in process), and webhook URLs in
 * tests need not name real hosts.
 */
const loopbackResolver = Layer.succeed(HostResolver, {
  resolve: () => Effect.succeed([{ address: "127.0.0.1", family: 4 as const }])
})

/**
 * The fallback polls of the dispatcher, the training worker and the reply worker look for work other processes wrote; a test has one
 * process, so they are a day: every wake-up is then a due time or a signal, and jumping the clock hours ahead does
 * not run thousands of polls.
 */
const QUIET_POLL = Duration.days(1)

export const makeTestEngine = (options: TestEngineOptions = {}) => {
  // One generator for the services and the repositories (delivery ids), so a seeded Random fixes every id.
  const ids = options.ids ?? IdGenerator.Deterministic
  const storage = StorageWithIds(
    options.databaseUrl ?? "file::memory:",
    ids,
    options.pgSocket === undefined ? {} : { pgSocket: options.pgSocket }
  )
  const core = Layer.merge(
    TrainingWorker.layer({ pollInterval: QUIET_POLL }),
    ReplyWorker.layer({ pollInterval: QUIET_POLL })
  ).pipe(
    Layer.provideMerge(EngineServices),
    Layer.provideMerge(Layer.merge(options.processor ?? TrainingProcessor.layer, ids)),
    Layer.provideMerge(options.overrides ?? Layer.empty),
    Layer.provideMerge(storage)
  )
  const config = WebhookConfig.layer({ allowPrivate: true, pollInterval: QUIET_POLL, ...options.webhooks })
  return Layer.mergeAll(Webhooks.layerWithoutDependencies, Dispatcher.layerWithoutDependencies).pipe(
    Layer.provideMerge(RecordingReceiver.transport),
    Layer.provideMerge(
      options.receiver === undefined ? RecordingReceiver.layer : Layer.succeed(RecordingReceiver, options.receiver)
    ),
    Layer.provideMerge(Layer.merge(config, loopbackResolver)),
    Layer.provideMerge(core),
    // Under everything: storage's timestamps, the workers' sleeps and the test's own moves read one clock.
    Layer.provideMerge(engineClock),
    Layer.orDie
  )
}

export type TestEngine = Layer.Success<ReturnType<typeof makeTestEngine>>
