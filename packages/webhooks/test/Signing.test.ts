/** The signer (D37, D44, D46), the receiver helper (D39) and the rules of D38 as pure functions. */
import { assert, describe, it } from "@effect/vitest"
import { Actor, DeliveryId, Event, EventId, OrganizationId, type WebhookSecrets } from "@support-engine/core"
import { DateTime, Duration, Effect, Option, Redacted } from "effect"
import { createHmac } from "node:crypto"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { verify, verifySync, WebhookVerificationError } from "../src/Receiver.js"
import { backoff, decide, parseRetryAfter } from "../src/Rules.js"
import { serializeBody, signDelivery } from "../src/Signer.js"

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
const OLD_SECRET = "whsec_b2xkLXNlY3JldC1vbGQtc2VjcmV0LW9sZC0xMjM0NQ=="

const content = (occurredAt: DateTime.Utc) => ({
  deliveryId: DeliveryId.make("0190a7e2-7c1e-7a3b-9c4d-5e6f70819203"),
  organizationId: OrganizationId.make("5b0c8d1e-2f3a-4b5c-8d6e-7f8091a2b3c4"),
  event: new Event({
    id: EventId.make("0190a7e2-7c1e-7a3b-9c4d-5e6f70819200"),
    event: "customer.deleted",
    occurred_at: occurredAt,
    actor: new Actor({ type: "api_token", id: "0190a7e2-7c1e-7a3b-9c4d-5e6f70819201" }),
    data: { id: "0190a7e2-7c1e-7a3b-9c4d-5e6f70819202" }
  })
})

const secrets = (current: string, previous?: { secret: string; until: DateTime.Utc }): WebhookSecrets => ({
  current: Redacted.make(current),
  previous: previous === undefined ? null : Redacted.make(previous.secret),
  previousExpiresAt: previous?.until ?? null
})

/** The time the tests sign at: now, so stock libraries that read the system clock accept it. */
const realNow = () => DateTime.makeUnsafe(Date.now())

describe("Signer (D37)", () => {
  it("serializes the body once, fields in the documented order (D37, D44)", () => {
    const body = serializeBody(content(DateTime.makeUnsafe(Date.UTC(2026, 10, 21, 15, 7, 0, 123))))
    assert.strictEqual(
      body,
      "{\"event\":\"customer.deleted\",\"id\":\"0190a7e2-7c1e-7a3b-9c4d-5e6f70819203\"," +
        "\"organization_id\":\"5b0c8d1e-2f3a-4b5c-8d6e-7f8091a2b3c4\"," +
        "\"data\":{\"id\":\"0190a7e2-7c1e-7a3b-9c4d-5e6f70819202\"}," +
        "\"occurred_at\":\"2026-11-21T15:07:00.123+00:00\"," +
        "\"actor\":{\"type\":\"api_token\",\"id\":\"0190a7e2-7c1e-7a3b-9c4d-5e6f70819201\"}}"
    )
  })

  it("signs the exact bytes: hex HMAC-SHA256 keyed with the secret's UTF-8, and Standard Webhooks", () => {
    const at = DateTime.makeUnsafe(Date.UTC(2026, 0, 2, 3, 4, 5, 678))
    const signed = signDelivery(content(at), secrets(SECRET), at)
    assert.deepStrictEqual(Object.keys(signed.headers), [
      "Content-Type",
      "User-Agent",
      "X-Service-Event",
      "X-Service-Delivery",
      "X-Service-Event-Id",
      "X-Service-Signature",
      "webhook-id",
      "webhook-timestamp",
      "webhook-signature"
    ])
    const expectedHex = createHmac("sha256", Buffer.from(SECRET, "utf8")).update(signed.body).digest("hex")
    const key = Buffer.from(SECRET.slice("whsec_".length), "base64")
    const timestamp = String(Math.floor(Date.UTC(2026, 0, 2, 3, 4, 5) / 1000))
    const expectedStandard = createHmac("sha256", key)
      .update(`0190a7e2-7c1e-7a3b-9c4d-5e6f70819203.${timestamp}.${signed.body}`)
      .digest("base64")
    assert.deepStrictEqual(signed.headers, {
      "Content-Type": "application/json",
      "User-Agent": "support-engine-webhooks/1",
      "X-Service-Event": "customer.deleted",
      "X-Service-Delivery": "0190a7e2-7c1e-7a3b-9c4d-5e6f70819203",
      "X-Service-Event-Id": "0190a7e2-7c1e-7a3b-9c4d-5e6f70819200",
      "X-Service-Signature": expectedHex,
      "webhook-id": "0190a7e2-7c1e-7a3b-9c4d-5e6f70819203",
      "webhook-timestamp": timestamp,
      "webhook-signature": `v1,${expectedStandard}`
    })
    assert.match(expectedHex, /^[0-9a-f]{64}$/)
  })

  it("the standardwebhooks package verifies a delivery, with either secret during a rotation (D46)", () => {
    const now = realNow()
    const plain = signDelivery(content(now), secrets(SECRET), now)
    assert.deepInclude(new StandardWebhook(SECRET).verify(plain.body, plain.headers) as object, {
      id: plain.headers["webhook-id"]
    })
    assert.throws(() => new StandardWebhook(OLD_SECRET).verify(plain.body, plain.headers))

    const rotating = signDelivery(
      content(now),
      secrets(SECRET, { secret: OLD_SECRET, until: DateTime.add(now, { hours: 1 }) }),
      now
    )
    assert.strictEqual(rotating.headers["webhook-signature"]!.split(" ").length, 2)
    assert.strictEqual(
      rotating.headers["X-Service-Signature-Previous"],
      createHmac("sha256", OLD_SECRET).update(rotating.body).digest("hex")
    )
    new StandardWebhook(SECRET).verify(rotating.body, rotating.headers)
    new StandardWebhook(OLD_SECRET).verify(rotating.body, rotating.headers)

    const expired = signDelivery(content(now), secrets(SECRET, { secret: OLD_SECRET, until: now }), now)
    assert.isUndefined(expired.headers["X-Service-Signature-Previous"], "the grace period ends at its instant")
    assert.throws(() => new StandardWebhook(OLD_SECRET).verify(expired.body, expired.headers))
  })
})

describe("Receiver helper (D39)", () => {
  const now = realNow()
  const signed = signDelivery(content(now), secrets(SECRET), now)
  const lowerCased = Object.fromEntries(Object.entries(signed.headers).map(([k, v]) => [k.toLowerCase(), v]))

  /** `verifySync` as plain code would call it: "ok", or the reason of the error it throws. */
  const attempt = (body: string, headers: Record<string, string>, secret: string | ReadonlyArray<string> = SECRET) => {
    try {
      verifySync(body, headers, secret)
      return "ok"
    } catch (error) {
      if (error instanceof WebhookVerificationError) return error.reason
      throw error
    }
  }

  it.effect("accepts a genuine delivery from raw bytes with node-style or fetch-style headers", () =>
    Effect.gen(function*() {
      const payload = yield* verify(Buffer.from(signed.body), lowerCased, SECRET, { now: Date.now() })
      assert.strictEqual(payload.id, signed.headers["webhook-id"])
      assert.strictEqual(payload.event, "customer.deleted")
      assert.deepStrictEqual(payload.data, { id: "0190a7e2-7c1e-7a3b-9c4d-5e6f70819202" })
      assert.strictEqual(payload.actor.type, "api_token")
      const viaHeaders = yield* verify(signed.body, new Headers(signed.headers), SECRET, { now: Date.now() })
      assert.deepStrictEqual(viaHeaders, payload)
    }))

  it("rejects tampering, other secrets, missing headers and stale or future timestamps", () => {
    assert.strictEqual(attempt(signed.body, signed.headers), "ok")
    assert.strictEqual(attempt(signed.body.replace("customer", "kustomer"), signed.headers), "invalid_signature")
    assert.strictEqual(attempt(`${signed.body} `, signed.headers), "invalid_signature")
    assert.strictEqual(attempt(signed.body, signed.headers, OLD_SECRET), "invalid_signature")
    assert.strictEqual(attempt(signed.body, signed.headers, [OLD_SECRET, SECRET]), "ok")
    const without = (name: string) => Object.fromEntries(Object.entries(signed.headers).filter(([k]) => k !== name))
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature", "X-Service-Signature"]) {
      assert.strictEqual(attempt(signed.body, without(name)), "missing_header", name)
    }
    // Only the hex signature is right: the Standard Webhooks one must match too, and the reverse.
    const bothMatter = [
      { ...signed.headers, "webhook-signature": "v1,AAAA" },
      { ...signed.headers, "X-Service-Signature": "0".repeat(64) }
    ]
    for (const headers of bothMatter) assert.strictEqual(attempt(signed.body, headers), "invalid_signature")
    assert.strictEqual(attempt(signed.body, { ...signed.headers, "webhook-timestamp": "soon" }), "invalid_timestamp")
    assert.strictEqual(
      attempt(signed.body, { ...signed.headers, "webhook-id": "0190a7e2-7c1e-7a3b-9c4d-5e6f70819299" }),
      "invalid_signature",
      "the id is signed"
    )
  })

  it.effect("the timestamp must be within 5 minutes (configurable) of now, either way", () =>
    Effect.gen(function*() {
      const sentAt = DateTime.toEpochMillis(now) - (DateTime.toEpochMillis(now) % 1000)
      const at = (offsetSeconds: number, toleranceSeconds?: number) =>
        Effect.result(verify(signed.body, signed.headers, SECRET, {
          now: sentAt + offsetSeconds * 1000,
          ...(toleranceSeconds === undefined ? {} : { toleranceSeconds })
        })).pipe(Effect.map((r) => r._tag === "Success" ? "ok" : r.failure.reason))
      assert.strictEqual(yield* at(300), "ok")
      assert.strictEqual(yield* at(301), "timestamp_out_of_tolerance")
      assert.strictEqual(yield* at(-300), "ok")
      assert.strictEqual(yield* at(-301), "timestamp_out_of_tolerance")
      assert.strictEqual(yield* at(61, 60), "timestamp_out_of_tolerance")
    }))
})

describe("docs/webhooks.md", () => {
  it.effect("its example request verifies with its example secret, by both signatures", () =>
    Effect.gen(function*() {
      const doc = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../../../docs/webhooks.md"), "utf8")
      const block = /```http\n([\s\S]*?)\n```/.exec(doc)![1]!
      const [head, body] = block.split("\n\n") as [string, string]
      const headers = Object.fromEntries(
        head.split("\n").slice(1).map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)])
      )
      const sentAt = Number(headers["webhook-timestamp"]) * 1000
      const payload = yield* verify(body, headers, SECRET, { now: sentAt })
      assert.strictEqual(payload.event, "conversation.created")
      assert.strictEqual(headers["X-Service-Signature"], createHmac("sha256", SECRET).update(body).digest("hex"))
    }))
})

describe("Delivery rules (D38)", () => {
  const settings = { retryBase: Duration.minutes(1), maxAttempts: 10, deactivateAfter: 5 }
  const at = DateTime.makeUnsafe(0)
  const answered = (status: number, retryAfter?: string) =>
    ({ _tag: "Answered", status, retryAfter, excerpt: null }) as const

  it("backs off 1, 2, 4, … 256 minutes", () => {
    assert.deepStrictEqual(
      Array.from({ length: 9 }, (_, i) => Duration.toMinutes(backoff(Duration.minutes(1), i + 1))),
      [1, 2, 4, 8, 16, 32, 64, 128, 256]
    )
  })

  it("2xx delivered, 410 gone, redirects and other answers retried, the 10th failure is final", () => {
    assert.strictEqual(decide(answered(200), 1, settings, at)._tag, "Delivered")
    assert.strictEqual(decide(answered(299), 10, settings, at)._tag, "Delivered")
    assert.strictEqual(decide(answered(410), 1, settings, at)._tag, "Gone")
    for (const status of [301, 302, 307, 400, 404, 500, 503]) {
      const outcome = decide(answered(status), 3, settings, at)
      assert.isTrue(outcome._tag === "Retry" && DateTime.toEpochMillis(outcome.at) === 4 * 60_000, `${status}`)
    }
    const noAnswer = decide({ _tag: "NoAnswer", reason: "timeout", error: "timeout" }, 9, settings, at)
    assert.isTrue(noAnswer._tag === "Retry" && DateTime.toEpochMillis(noAnswer.at) === 256 * 60_000)
    const last = decide(answered(500), 10, settings, at)
    assert.isTrue(last._tag === "Failed" && last.deactivateAfter === 5)
  })

  it("reads Retry-After as seconds or an HTTP date, capped at a day", () => {
    const now = DateTime.makeUnsafe(Date.UTC(2026, 0, 1))
    assert.deepStrictEqual(parseRetryAfter("120", now), Option.some(Duration.seconds(120)))
    assert.deepStrictEqual(parseRetryAfter("Thu, 01 Jan 2026 00:10:00 GMT", now), Option.some(Duration.minutes(10)))
    assert.deepStrictEqual(parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now), Option.some(Duration.zero))
    assert.deepStrictEqual(parseRetryAfter("9999999", now), Option.some(Duration.hours(24)))
    assert.isTrue(Option.isNone(parseRetryAfter("soon", now)))
    assert.isTrue(Option.isNone(parseRetryAfter("-5", now)))
    assert.isTrue(Option.isNone(parseRetryAfter(undefined, now)))
    // Only 429 and 503 are honoured, and only when longer than the backoff.
    const longer = decide(answered(429, "600"), 1, settings, at)
    assert.isTrue(longer._tag === "Retry" && DateTime.toEpochMillis(longer.at) === 600_000)
    const shorter = decide(answered(503, "10"), 2, settings, at)
    assert.isTrue(shorter._tag === "Retry" && DateTime.toEpochMillis(shorter.at) === 120_000)
    const ignored = decide(answered(500, "600"), 1, settings, at)
    assert.isTrue(ignored._tag === "Retry" && DateTime.toEpochMillis(ignored.at) === 60_000)
  })
})
