/**
 * The delivery rules as pure functions: what an attempt's result means for the delivery and when the next
 * attempt is due.
 */
import { DeliveryOutcome, type WebhookSettings } from "@support-engine/core"
import { DateTime, Duration, Option } from "effect"

/** How one attempt ended: the receiver answered, or it did not (timeout, connection error, refused address). */
export type AttemptResult =
  | {
    readonly _tag: "Answered"
    readonly status: number
    readonly retryAfter: string | undefined
    readonly excerpt: string | null
  }
  | {
    readonly _tag: "NoAnswer"
    readonly reason: "timeout" | "connection" | "refused_address"
    readonly error: string
  }

/** The wait after the `attempt`-th failed attempt of a round: `base · 2^(attempt-1)` (1, 2, 4, … minutes). */
export const backoff = (base: Duration.Duration, attempt: number): Duration.Duration =>
  Duration.times(base, 2 ** (attempt - 1))

/** The longest a receiver's `Retry-After` may hold a delivery back. */
export const MAX_RETRY_AFTER = Duration.hours(24)

/** `Retry-After` as delta-seconds or an HTTP date (RFC 9110), relative to `now`; capped at `MAX_RETRY_AFTER`. */
export const parseRetryAfter = (value: string | undefined, now: DateTime.Utc): Option.Option<Duration.Duration> => {
  if (value === undefined) return Option.none()
  const trimmed = value.trim()
  // An HTTP date (`Wed, 21 Oct 2026 07:28:00 GMT`) is what `Date.parse` reads; a bare number is delta-seconds.
  const date = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : Number.NaN
  const wait = /^\d+$/.test(trimmed)
    ? Option.some(Duration.seconds(Number(trimmed)))
    : Number.isNaN(date)
    ? Option.none()
    : Option.some(Duration.millis(Math.max(0, date - DateTime.toEpochMillis(now))))
  return Option.map(wait, (d) => Duration.min(d, MAX_RETRY_AFTER))
}

/** Answers whose `Retry-After` is honoured: too many requests, and unavailable. */
const honoursRetryAfter = (status: number) => status === 429 || status === 503

/**
 * The outcome of the `attempt`-th attempt of a round that ended at `now`: a 2xx is delivered; a 410 is gone;
 * anything else is retried after the backoff (or a longer `Retry-After` on 429/503) until `maxAttempts`, then failed.
 */
export const decide = (
  result: AttemptResult,
  attempt: number,
  settings: Pick<WebhookSettings, "retryBase" | "maxAttempts" | "deactivateAfter">,
  now: DateTime.Utc
): DeliveryOutcome => {
  if (result._tag === "Answered" && result.status >= 200 && result.status < 300) return DeliveryOutcome.Delivered()
  if (result._tag === "Answered" && result.status === 410) return DeliveryOutcome.Gone()
  if (attempt >= settings.maxAttempts) return DeliveryOutcome.Failed({ deactivateAfter: settings.deactivateAfter })
  const base = backoff(settings.retryBase, attempt)
  const asked = result._tag === "Answered" && honoursRetryAfter(result.status)
    ? parseRetryAfter(result.retryAfter, now)
    : Option.none()
  const wait = Option.match(asked, { onNone: () => base, onSome: (d) => Duration.max(base, d) })
  return DeliveryOutcome.Retry({ at: DateTime.addDuration(now, wait) })
}
