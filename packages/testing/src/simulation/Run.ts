/**
 * One simulation run: the engine on a fresh database, the steps, the checks after each, and at the end
 * the engine left to finish everything due (a day of simulated time) before the last checks. Randomness comes only
 * from the seed (each step's own `Random`, the engine's id streams for ids and secrets), time only from the
 * `TestClock`, configuration only from here: the same seed gives the same trace, byte for byte, on SQLite and on
 * PostgreSQL.
 */
import { WebhookConfig, withIdStream } from "@support-engine/core"
import { Clock, ConfigProvider, Context, Duration, Effect, Layer, Random, References, Scheduler } from "effect"
import { createHash } from "node:crypto"
import { advanceBy, settle, withNetworkSettle } from "../Advance.js"
import { makeEngineClock } from "../EngineClock.js"
import { RecordingReceiver } from "../RecordingReceiver.js"
import { makeEngineHost, SIMULATION_WEBHOOKS } from "./EngineHost.js"
import { InvariantBroken } from "./Failure.js"
import { makeDeliveryOracle } from "./invariants/Deliveries.js"
import { checkErasures } from "./invariants/Erasure.js"
import { checkLists } from "./invariants/Lists.js"
import { observe } from "./invariants/Observe.js"
import { checkAsks } from "./invariants/Replies.js"
import { emptyWorld } from "./Model.js"
import { agent } from "./ops/Agents.js"
import { conversation, customerMessage } from "./ops/Conversations.js"
import { company, customer } from "./ops/Customers.js"
import { emailConversation } from "./ops/EmailConversations.js"
import { erase } from "./ops/Erasure.js"
import { clock, crash } from "./ops/Faults.js"
import { idempotent } from "./ops/Idempotency.js"
import { article, training } from "./ops/Knowledge.js"
import type { Op, Sim } from "./ops/Op.js"
import { newToken, newUser, newWorkspace, revokeToken, useToken } from "./ops/Provisioning.js"
import { trainingFolder } from "./ops/TrainingFolders.js"
import { webhook } from "./ops/Webhooks.js"
import { webhookTools } from "./ops/WebhookTools.js"
import type { SimulationOptions, SimulationResult } from "./Options.js"
import { plantedPorts, plantedReceiver } from "./Plants.js"
import { SlowLocalModel } from "./Questions.js"
import { makeRng, stepSeedsOf } from "./Rng.js"

const OPS: ReadonlyArray<Op> = [
  newWorkspace,
  newUser,
  newToken,
  revokeToken,
  useToken,
  company,
  customer,
  agent,
  conversation,
  customerMessage,
  training,
  article,
  webhook,
  clock,
  crash,
  webhookTools,
  idempotent,
  trainingFolder,
  emailConversation,
  erase
]
const TOTAL_WEIGHT = OPS.reduce((sum, op) => sum + op.weight, 0)

/** A fixed key for webhook secrets at rest: no key file, and nothing read from the environment. */
const SECRET_KEY = "5e".repeat(32)

const settings = { ...SIMULATION_WEBHOOKS, timeout: Duration.seconds(10), leaseMargin: Duration.seconds(5) }
const DELIVERY = {
  lateBy: 0,
  retryBase: Duration.toMillis(settings.retryBase!),
  timeout: Duration.toMillis(settings.timeout),
  lease: Duration.toMillis(settings.timeout) + Duration.toMillis(settings.leaseMargin),
  maxAttempts: 10,
  deactivateAfter: 5
}

/** Long enough for every retry, lease and poll of the engine to come due. */
const QUIESCE = Duration.toMillis(Duration.days(1)) + Duration.toMillis(Duration.hours(1))

const pickOp = (sim: Sim, seed: number) =>
  Effect.gen(function*() {
    const rng = makeRng(seed)
    if (sim.world.spaces.length === 0) return { op: OPS[0]!, rng }
    let roll = yield* rng.int(0, TOTAL_WEIGHT)
    for (const op of OPS) {
      if (roll < op.weight) return { op, rng }
      roll -= op.weight
    }
    return { op: OPS[OPS.length - 1]!, rng }
  })

const program = (
  options: SimulationOptions,
  trace: Array<string>,
  stepSeeds: ReadonlyArray<number>,
  progress: { step: number }
) =>
  Effect.gen(function*() {
    const crashes = options.crashes ?? true
    const network = options.databaseUrl?.startsWith("postgres") === true
    const receiver = Context.get(
      yield* Layer.build(RecordingReceiver.layer.pipe(Layer.provide(WebhookConfig.layer(settings)))),
      RecordingReceiver
    )
    const overrides = plantedPorts(options.plantBug)
    const engine = yield* makeEngineHost({
      seed: options.seed,
      databaseUrl: options.databaseUrl,
      crashes,
      receiver: plantedReceiver(options.plantBug, receiver),
      overrides: overrides === undefined ? SlowLocalModel : Layer.merge(SlowLocalModel, overrides)
    })
    const world = emptyWorld()
    const sim: Sim = {
      world,
      engine,
      receiver,
      trace,
      plantBug: options.plantBug,
      crashes,
      network,
      // Exact retry times on both databases: on PostgreSQL `settle` waits until no query of the engine waits for its
      // answer (EngineHost's `databaseBusy`), so the clock never moves while a query is on its way.
      deliveries: makeDeliveryOracle(world, DELIVERY)
    }
    const every = Math.max(1, options.fullCheckEvery ?? 100)
    const checks = (step: number, final: boolean) =>
      Effect.gen(function*() {
        yield* settle
        yield* observe(sim)
        const now = yield* Clock.currentTimeMillis
        yield* sim.deliveries.check(now, final)
        yield* checkAsks(world, now, final)
        yield* checkLists(sim, final || step % every === 0)
        if (final) yield* checkErasures(sim)
      })
    const steps = Effect.gen(function*() {
      for (const [i, seed] of stepSeeds.entries()) {
        progress.step = i + 1
        options.onStep?.(i + 1)
        // The engine is quiet here (the last checks settled it): the step's ids, and those of what it sets off,
        // sort after every id so far (IdStreams.ts), and its own come from a stream of the step's.
        const stream = `step ${i + 1}`
        yield* engine.nextTurn(stream)
        yield* Effect.gen(function*() {
          const { op, rng } = yield* pickOp(sim, seed)
          const line = yield* op.run(sim, rng)
          trace.push(`${i + 1} ${line ?? `skip ${op.name}`}`)
          yield* checks(i + 1, false)
        }).pipe(withIdStream(stream))
      }
      options.onStep?.(stepSeeds.length + 1)
      yield* engine.nextTurn("end")
      yield* Effect.gen(function*() {
        yield* advanceBy(QUIESCE)
        trace.push(`end: quiet after ${QUIESCE} ms`)
        yield* checks(stepSeeds.length, true)
      }).pipe(withIdStream("end"))
    })
    yield* (engine.databaseBusy === undefined ? steps : withNetworkSettle(engine.databaseBusy)(steps))
  })

/** Runs the simulation; it never throws for a broken invariant, only for a bug of its own. */
export const simulate = (options: SimulationOptions): Promise<SimulationResult> => {
  const trace: Array<string> = []
  const run = Effect.gen(function*() {
    const stepSeeds = options.stepSeeds ?? (yield* stepSeedsOf(options.seed, options.steps))
    const progress = { step: 0 }
    const network = options.databaseUrl?.startsWith("postgres") === true
    const outcome = yield* Effect.scoped(program(options, trace, stepSeeds, progress)).pipe(
      network ? withNetworkSettle() : (self) => self,
      Effect.as(undefined),
      Effect.catchDefect((defect) => defect instanceof InvariantBroken ? Effect.succeed(defect) : Effect.die(defect))
    )
    const text = trace.join("\n") + "\n"
    if (outcome === undefined) {
      return {
        _tag: "Ok",
        trace: text,
        stepSeeds,
        hash: createHash("sha256").update(text).digest("hex")
      } satisfies SimulationResult
    }
    const step = Math.max(1, progress.step)
    return {
      _tag: "Failed",
      trace: `${text}broken: ${outcome.invariant}\n  ${outcome.detail}\n`,
      stepSeeds: stepSeeds.slice(0, step),
      step,
      invariant: outcome.invariant
    } satisfies SimulationResult
  })
  return Effect.runPromise(
    run.pipe(
      // Fibers resume on microtasks, never behind Node's timers and I/O: `settle` waits for pending I/O itself.
      Effect.provideService(Scheduler.Scheduler, new Scheduler.MixedScheduler("sync")),
      Random.withSeed(options.seed),
      Effect.provideService(
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromEnvRecord({ SUPPORT_SECRET_KEY: SECRET_KEY })
      ),
      // One clock for the whole run: the engines it opens, one after another across crashes, all use it
      // (makeTestEngine keeps an engine clock it finds in context).
      Effect.provideService(Clock.Clock, makeEngineClock(settle)),
      // Nothing collects spans here: with tracing off the engine skips making them, as the standalone server does.
      Effect.provideService(References.TracerEnabled, false),
      // The run's output is its trace and its last line: the dispatcher's line per failed attempt would bury
      // them. Errors still show.
      Effect.provideService(References.MinimumLogLevel, "Error")
    )
  )
}
