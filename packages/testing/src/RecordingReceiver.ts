/**
 * A webhook receiver inside the process, plugged in as the dispatcher's `WebhookTransport`. It records every
 * request (raw body, headers, the simulated time it arrived) and answers by script: a status, a slow status, a
 * timeout, or a 410 that disables the webhook.
 *
 * Answers are keyed by delivery and attempt (the `X-Service-Delivery` header, and how many requests of that
 * delivery came before), never by the order requests arrive in: attempts due at the same instant are made
 * concurrently, and on PostgreSQL their order follows the server's answers to the claims that started them, so an
 * answer given by arrival went to a different delivery from run to run.
 *
 * Why a transport and not a server on loopback: a real HTTP exchange is I/O, and a fiber waiting on I/O does not see
 * `TestClock.adjust`; the test would have to wait in real time and guess when the engine is done. Here an answer
 * "after 3 seconds" is a sleep on Effect's `Clock`, a timeout is the configured attempt timeout on that clock, and
 * the whole exchange stays on the test clock: deterministic, and as fast as the database. The signatures are the
 * ones a real receiver would check (the transport gets the exact bytes and headers). Hosts that want the wire too
 * keep `WebhookTransport.HttpClient` and a server of their own (the webhooks package's tests do).
 */
import { WebhookConfig } from "@support-engine/core"
import {
  TransportError,
  type TransportRequest,
  type TransportResponse,
  WebhookTransport
} from "@support-engine/webhooks"
import { Clock, Context, Duration, Effect, Layer } from "effect"

/**
 * One scripted answer: a status (answered at once), `{ status, after }` (answered after `after` of simulated time;
 * at or past the attempt timeout it is a timeout), or `"timeout"` (no answer within the attempt timeout).
 */
export type ScriptedAnswer =
  | number
  | { readonly status: number; readonly after?: Duration.Input; readonly retryAfter?: string }
  | "timeout"

/** One request the receiver got. */
export interface ReceivedRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The exact body sent: signatures are over these bytes. */
  readonly body: string
  /** Simulated time (epoch ms) the attempt started. */
  readonly at: number
  /** Simulated time (epoch ms) it was answered, timed out or interrupted. */
  readonly finishedAt: number
  /**
   * What it was answered: a status, "timeout", or "interrupted" when the sender stopped waiting before the answer
   * (the engine was closed with the attempt in flight: the request arrived, its answer never did).
   */
  readonly answer: number | "timeout" | "interrupted"
}

/** Answer for a URL without a script, or whose script ran out. */
export const DEFAULT_ANSWER: ScriptedAnswer = 204

/** What a URL answers to attempt `attempt` (0 for the first) of delivery `deliveryId`. */
export type AnswerBy = (deliveryId: string, attempt: number) => ScriptedAnswer

const deliveryOf = (request: TransportRequest) =>
  request.headers["X-Service-Delivery"] ?? request.headers["x-service-delivery"] ?? ""

export class RecordingReceiver
  extends Context.Service<RecordingReceiver>()("@support-engine/testing/RecordingReceiver", {
    make: Effect.gen(function*() {
      const config = yield* WebhookConfig
      const received: Array<ReceivedRequest> = []
      const scripts = new Map<string, AnswerBy>()
      /** Requests so far per URL and delivery: a delivery's attempts are made one after another. */
      const attempts = new Map<string, number>()

      const next = (request: TransportRequest): ScriptedAnswer => {
        const deliveryId = deliveryOf(request)
        const key = `${request.url} ${deliveryId}`
        const attempt = attempts.get(key) ?? 0
        attempts.set(key, attempt + 1)
        return scripts.get(request.url)?.(deliveryId, attempt) ?? DEFAULT_ANSWER
      }

      const send = (request: TransportRequest): Effect.Effect<TransportResponse, TransportError> =>
        Effect.suspend(() => {
          let at = 0
          let recorded = false
          const record = (result: ReceivedRequest["answer"]) =>
            Effect.map(Clock.currentTimeMillis, (finishedAt) => {
              recorded = true
              received.push({
                url: request.url,
                headers: request.headers,
                body: request.body,
                at,
                finishedAt,
                answer: result
              })
            })
          return Effect.gen(function*() {
            at = yield* Clock.currentTimeMillis
            const answer = next(request)
            const after = typeof answer === "object" && answer.after !== undefined
              ? Duration.fromInputUnsafe(answer.after)
              : Duration.zero
            if (answer === "timeout" || Duration.isGreaterThanOrEqualTo(after, config.timeout)) {
              // The dispatcher's real transport cuts an attempt at the timeout; so does this one, on the test clock.
              yield* Effect.sleep(config.timeout)
              yield* record("timeout")
              return yield* new TransportError({ reason: "timeout", message: "The receiver did not answer in time." })
            }
            if (Duration.isGreaterThan(after, Duration.zero)) yield* Effect.sleep(after)
            const status = typeof answer === "number" ? answer : answer.status
            yield* record(status)
            return {
              status,
              retryAfter: typeof answer === "object" ? answer.retryAfter : undefined,
              excerpt: null
            }
          }).pipe(Effect.onInterrupt(() => recorded ? Effect.void : record("interrupted")))
        })

      return {
        /** The transport the dispatcher uses (see `RecordingReceiver.transport`). */
        send,
        /**
         * Answers for `url` from now on, per delivery: its first attempt gets `answers[0]`, its second `answers[1]`,
         * and so on; then `fallback` (default 204).
         */
        script: (url: string, answers: ReadonlyArray<ScriptedAnswer>, fallback: ScriptedAnswer = DEFAULT_ANSWER) =>
          Effect.sync(() => {
            const copy = [...answers]
            scripts.set(url, (_, attempt) => copy[attempt] ?? fallback)
          }),
        /** Answers for `url` from now on, given by `answer` for each delivery and attempt. */
        answerWith: (url: string, answer: AnswerBy) =>
          Effect.sync(() => {
            scripts.set(url, answer)
          }),
        /** Every request so far, in the order they started. */
        received: Effect.sync((): ReadonlyArray<ReceivedRequest> => [...received]),
        /** How many requests so far. */
        count: Effect.sync(() => received.length),
        /** The requests from the `from`-th on (0-based), without copying the earlier ones. */
        receivedFrom: (from: number) => Effect.sync((): ReadonlyArray<ReceivedRequest> => received.slice(from)),
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
  /** The receiver; needs the webhook settings (the attempt timeout) in context. */
  static readonly layer: Layer.Layer<RecordingReceiver, never, WebhookConfig> = Layer.effect(this, this.make)

  /** The receiver as the dispatcher's transport; needs the receiver in context. */
  static readonly transport: Layer.Layer<WebhookTransport, never, RecordingReceiver> = Layer.effect(
    WebhookTransport,
    Effect.map(RecordingReceiver, (receiver) => ({ send: receiver.send }))
  )
}
