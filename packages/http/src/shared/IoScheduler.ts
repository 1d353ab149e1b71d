/**
 * Speed seam (request latency under load): the scheduler the Node servers run requests on: fiber steps the runtime defers run in batches from
 * `setImmediate`, so Node reads its sockets between batches.
 *
 * Effect's default scheduler runs deferred steps as promise microtasks, up to 2,048 drains in a row, and Node
 * drains microtasks after every socket callback. Under load, the requests on sockets that a poll reached late
 * waited behind whole chains of other requests' work: with 50 connections creating conversations, the handler
 * never took more than a second (request to response finished), yet clients saw a p99 of 2.5 to 4.9 s. On this
 * scheduler the same load has a p99 of 0.26 to 0.40 s, for about a tenth fewer requests a second
 * (docs/performance.md).
 *
 * It is applied per request (`onIoScheduler`), not to the layers that build the server: `NodeHttpServer` listens
 * before it attaches its request handler, and a start-up that yields to I/O between the two lets a request arrive
 * with no handler, which Node then never answers.
 */
import type { HttpApp } from "@effect/platform"
import { Effect, FiberRef, identity, Scheduler } from "effect"
import { globalValue } from "effect/GlobalValue"

/** The seam's switch, read when the server is built: `false` keeps Effect's default scheduler (A/B). */
export const IoSchedulerSeam: FiberRef.FiberRef<boolean> = globalValue(
  Symbol.for("@support-engine/http/IoSchedulerSeam"),
  () => FiberRef.unsafeMake(true)
)

export const ioScheduler: Scheduler.Scheduler = Scheduler.makeBatched((runBatch) => setImmediate(runBatch))

/** `onIoScheduler`, or nothing when the seam is switched off. */
export const ioSchedulerMiddleware: Effect.Effect<<E, R>(app: HttpApp.Default<E, R>) => HttpApp.Default<E, R>> = Effect
  .map(FiberRef.get(IoSchedulerSeam), (enabled) => enabled ? onIoScheduler : identity)

/**
 * Middleware: the request's fiber continues on `ioScheduler`. Set on the fiber rather than scoped with
 * `Effect.withScheduler`: the fiber serves this one request and ends with it, and a scope would wrap every request
 * in an acquire/release (docs/decisions.md, "Request-scoped state").
 */
export const onIoScheduler = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.zipRight(FiberRef.set(FiberRef.currentScheduler, ioScheduler), app)
