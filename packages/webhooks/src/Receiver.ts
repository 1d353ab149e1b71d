/**
 * The receiver's side: verify a delivery from its raw body and headers before trusting it. Both signatures
 * are checked in constant time (the hex `X-Service-Signature` or, during a rotation, `X-Service-Signature-Previous`;
 * and one of the Standard Webhooks signatures), and `webhook-timestamp` must be within the tolerance of now, which
 * rejects replays of old deliveries. Receivers should still dedupe by the body's `id` (delivery is at least once).
 */
import { Actor, EventData, EventType } from "@support-engine/core"
import { Clock, Effect, Result, Schema } from "effect"
import { timingSafeEqual } from "node:crypto"
import { hexSignature, standardSignature } from "./Signer.js"

/** The body of a delivery. `occurred_at` stays the RFC 3339 string it was sent as. */
export class WebhookPayload extends Schema.Class<WebhookPayload>("WebhookPayload")({
  event: EventType,
  id: Schema.String.check(Schema.isUUID()),
  organization_id: Schema.String.check(Schema.isUUID()),
  data: EventData,
  occurred_at: Schema.String,
  actor: Actor
}) {}

export const VerificationFailure = Schema.Literals([
  "missing_header",
  "invalid_timestamp",
  "timestamp_out_of_tolerance",
  "invalid_signature",
  "invalid_body"
])

/** Why a delivery was not accepted. */
export class WebhookVerificationError extends Schema.TaggedError<WebhookVerificationError>()(
  "WebhookVerificationError",
  { reason: VerificationFailure, message: Schema.String }
) {}

/** Headers as `fetch` (`Headers`) or `node:http` (`IncomingHttpHeaders`) give them. */
export type HeadersInput =
  | { readonly get: (name: string) => string | null }
  | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300). */
  readonly toleranceSeconds?: number
  /** The time to verify at (default: Effect's `Clock`). */
  readonly now?: Date | number
}

export const DEFAULT_TOLERANCE_SECONDS = 300

const header = (headers: HeadersInput, name: string): string | undefined => {
  if (typeof headers.get === "function") {
    return (headers as { get: (n: string) => string | null }).get(name) ?? undefined
  }
  const record = headers as Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  const key = Object.keys(record).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : record[key]
  return typeof value === "string" ? value : value?.[0]
}

const equal = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

const fail = (reason: typeof VerificationFailure.Type, message: string) =>
  Result.fail(new WebhookVerificationError({ reason, message }))

const decodePayload = Schema.decodeUnknownResult(Schema.fromJsonString(WebhookPayload))

/** The check itself, at `nowSeconds`. */
const check = (
  rawBody: string | Uint8Array,
  headers: HeadersInput,
  secrets: ReadonlyArray<string>,
  nowSeconds: number,
  toleranceSeconds: number
): Result.Result<WebhookPayload, WebhookVerificationError> => {
  const id = header(headers, "webhook-id")
  const timestamp = header(headers, "webhook-timestamp")
  const signature = header(headers, "webhook-signature")
  const hex = header(headers, "x-service-signature")
  const hexPrevious = header(headers, "x-service-signature-previous")
  if (id === undefined || timestamp === undefined || signature === undefined || hex === undefined) {
    return fail(
      "missing_header",
      "A webhook-id, webhook-timestamp, webhook-signature or X-Service-Signature is missing."
    )
  }
  if (!/^\d{1,15}$/.test(timestamp)) return fail("invalid_timestamp", "webhook-timestamp is not a Unix time.")
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) {
    return fail("timestamp_out_of_tolerance", "webhook-timestamp is too far from now.")
  }
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody
  const sent = signature.split(" ").filter((s) => s.length > 0)
  // Every comparison runs, matching or not, so timing tells nothing about which part matched.
  let standardOk = false
  let hexOk = false
  for (const secret of secrets) {
    const expected = standardSignature(id, Number(timestamp), body, secret)
    for (const candidate of sent) standardOk = equal(candidate, expected) || standardOk
    const expectedHex = hexSignature(body, secret)
    hexOk = equal(hex, expectedHex) || hexOk
    if (hexPrevious !== undefined) hexOk = equal(hexPrevious, expectedHex) || hexOk
  }
  if (!standardOk || !hexOk) return fail("invalid_signature", "The signature does not match.")
  const payload = decodePayload(body.toString())
  if (Result.isFailure(payload)) return fail("invalid_body", "The body is not a delivery.")
  if (payload.success.id !== id) return fail("invalid_body", "The body's id is not the webhook-id.")
  return Result.succeed(payload.success)
}

const secretList = (secret: string | ReadonlyArray<string>): ReadonlyArray<string> =>
  typeof secret === "string" ? [secret] : secret

/**
 * Verifies a delivery against the webhook's secret (or several, while the receiver itself rotates) and returns its
 * payload. `rawBody` must be the bytes received, before any JSON parsing.
 */
export const verify = (
  rawBody: string | Uint8Array,
  headers: HeadersInput,
  secret: string | ReadonlyArray<string>,
  options: VerifyOptions = {}
): Effect.Effect<WebhookPayload, WebhookVerificationError> =>
  Effect.flatMap(
    options.now === undefined ? Clock.currentTimeMillis : Effect.succeed(Number(options.now)),
    (millis) =>
      Effect.fromResult(check(
        rawBody,
        headers,
        secretList(secret),
        Math.floor(millis / 1000),
        options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
      ))
  )

/** `verify` for code without Effect: returns the payload or throws a `WebhookVerificationError`. */
export const verifySync = (
  rawBody: string | Uint8Array,
  headers: HeadersInput,
  secret: string | ReadonlyArray<string>,
  options: VerifyOptions = {}
): WebhookPayload =>
  Result.getOrThrowWith(Effect.runSync(Effect.result(verify(rawBody, headers, secret, options))), (error) => error)
