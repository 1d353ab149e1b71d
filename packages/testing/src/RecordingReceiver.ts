/**
 * A webhook receiver inside the process, plugged in as the dispatcher's `WebhookTransport`. It records every
 * request (raw body, headers, the simulated time it arrived) and answers by script: a status, a slow status, a
 * timeout, or a 410 that disables the webhook (D38).
 *
 * Why a transport and not a server on loopback: a real HTTP exchange is I/O, and a fiber waiting on I/O does not see
 * `TestClock.adjust`; the test would have to wait in real time and guess when the engine is done. Here an answer
 * "after 3 seconds" is a sleep on Effect's `Clock`, a timeout is the configured attempt timeout on that clock, and
 * the whole exchange stays on the test clock: deterministic, and as fast as the database. The signatures are the
 * ones a real receiver would check (the transport gets the exact bytes and headers). Hosts that want the wire too
 * keep `WebhookTransport.Undici` and a server of their own (the webhooks package's tests do).
 */
import { WebhookConfig } from "@support-engine/core"
import {
  TransportError,
  type TransportRequest,
  type TransportResponse,
  WebhookTransport
} from "@support-engine/webhooks"
import { Clock, Duration, Effect, Layer } from "effect"

/**
 * One scripted answer: a status (answered at once), `{ status, after }` (answered after `after` of simulated time;
 * at or past the attempt timeout it is a timeout), or `"timeout"` (no answer within the attempt timeout).
 */
export type ScriptedAnswer =
  | number
  | { readonly status: number; readonly after?: Duration.DurationInput; readonly retryAfter?: string }
  | "timeout"

/** One request the receiver got. */
export interface ReceivedRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The exact body sent: signatures are over these bytes. */
  readonly body: string
  /** Simulated time (epoch ms) the attempt started. */
  readonly at: number
  /** What it was answered: a status, or "timeout". */
  readonly answer: number | "timeout"
}

/** Answer for a URL without a script, or whose script ran out. */
export const DEFAULT_ANSWER: ScriptedAnswer = 204

export class RecordingReceiver
  extends Effect.Service<RecordingReceiver>()("@support-engine/testing/RecordingReceiver", {
    effect: Effect.gen(function*() {
      const config = yield* WebhookConfig
      const received: Array<ReceivedRequest> = []
      const scripts = new Map<string, Array<ScriptedAnswer>>()
      const fallbacks = new Map<string, ScriptedAnswer>()

      const next = (url: string): ScriptedAnswer => {
        const queue = scripts.get(url)
        const answer = queue?.shift()
        return answer ?? fallbacks.get(url) ?? DEFAULT_ANSWER
      }

      const send = (request: TransportRequest): Effect.Effect<TransportResponse, TransportError> =>
        Effect.gen(function*() {
          const at = yield* Clock.currentTimeMillis
          const answer = next(request.url)
          const record = (result: number | "timeout") =>
            received.push({ url: request.url, headers: request.headers, body: request.body, at, answer: result })
          const after = typeof answer === "object" && answer.after !== undefined
            ? Duration.decode(answer.after)
            : Duration.zero
          if (answer === "timeout" || Duration.greaterThanOrEqualTo(after, config.timeout)) {
            // The dispatcher's real transport cuts an attempt at the timeout; so does this one, on the test clock.
            yield* Effect.sleep(config.timeout)
            record("timeout")
            return yield* new TransportError({ reason: "timeout", message: "The receiver did not answer in time." })
          }
          if (Duration.greaterThan(after, Duration.zero)) yield* Effect.sleep(after)
          const status = typeof answer === "number" ? answer : answer.status
          record(status)
          return {
            status,
            retryAfter: typeof answer === "object" ? answer.retryAfter : undefined,
            excerpt: null
          }
        })

      return {
        /** The transport the dispatcher uses (see `RecordingReceiver.transport`). */
        send,
        /** Queues answers for `url`, used one per request in order; then `fallback` (default 204) for the rest. */
        script: (url: string, answers: ReadonlyArray<ScriptedAnswer>, fallback?: ScriptedAnswer) =>
          Effect.sync(() => {
            scripts.set(url, [...(scripts.get(url) ?? []), ...answers])
            if (fallback !== undefined) fallbacks.set(url, fallback)
          }),
        /** Every request so far, in the order they started. */
        received: Effect.sync((): ReadonlyArray<ReceivedRequest> => [...received]),
        /** Requests to one URL. */
        receivedAt: (url: string) =>
          Effect.sync((): ReadonlyArray<ReceivedRequest> => received.filter((r) => r.url === url)),
        /** Forgets what was received (scripts are kept). */
        clear: Effect.sync(() => {
          received.length = 0
        })
      }
    })
  })
{
  /** The receiver as the dispatcher's transport; needs the receiver in context. */
  static readonly transport: Layer.Layer<WebhookTransport, never, RecordingReceiver> = Layer.effect(
    WebhookTransport,
    Effect.map(RecordingReceiver, (receiver) => ({ send: receiver.send }))
  )
}
