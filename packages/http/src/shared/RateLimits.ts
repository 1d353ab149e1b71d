/**
 * Rate limits per token: a token bucket of `burst` requests refilled at `perSecond`, kept in this process's
 * memory and read from Effect's `Clock` (so `TestClock` drives it). Every answer carries the IETF
 * `RateLimit-Policy` and `RateLimit` headers (draft-ietf-httpapi-ratelimit-headers, structured-field form); a
 * request over the limit is 429 `RATE_LIMITED` with `Retry-After` in whole seconds and does not run.
 *
 * Each process has its own buckets: N processes behind a load balancer allow up to N times the budget. Requests
 * are keyed by the token's id (never its secret); requests without a bearer token by their remote address.
 */
import { Config, Context, Effect, Layer, Schema } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { envelope } from "./ErrorResponses.js"
import { validated } from "./HttpConfig.js"

export interface RateLimitSettings {
  /** Tokens added per second; 0 turns limiting off. */
  readonly perSecond: number
  /** Bucket size: the most requests allowed at once; 0 turns limiting off. */
  readonly burst: number
}

/** Limits a busy integration never meets: 100 requests a second, bursts of 200. */
export const DEFAULT_RATE_LIMITS: RateLimitSettings = { perSecond: 100, burst: 200 }

export class RateLimitConfig extends Context.Reference<RateLimitSettings>("@support-engine/http/RateLimitConfig", {
  defaultValue: (): RateLimitSettings => DEFAULT_RATE_LIMITS
}) {
  /** `SUPPORT_RATE_LIMIT_PER_SECOND` (default 100) and `SUPPORT_RATE_LIMIT_BURST` (default 200); 0 turns it off. */
  static readonly fromEnv: Layer.Layer<never, Config.ConfigError> = Layer.effect(
    RateLimitConfig,
    Config.all({
      perSecond: validated(
        Config.Number("SUPPORT_RATE_LIMIT_PER_SECOND").pipe(Config.withDefault(DEFAULT_RATE_LIMITS.perSecond)),
        "SUPPORT_RATE_LIMIT_PER_SECOND",
        "must be 0 or more",
        (n) => Number.isFinite(n) && n >= 0
      ),
      burst: validated(
        Config.Int("SUPPORT_RATE_LIMIT_BURST").pipe(Config.withDefault(DEFAULT_RATE_LIMITS.burst)),
        "SUPPORT_RATE_LIMIT_BURST",
        "must be 0 or more",
        (n) => n >= 0
      )
    })
  )
}

/** 429 RATE_LIMITED: the token's budget is spent; `Retry-After` says when one request is allowed again. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", { message: Schema.String }) {
  static readonly status = 429
  static readonly code = "RATE_LIMITED"
  readonly status = RateLimited.status
  readonly code = RateLimited.code
}

/** The standard error envelope of `RateLimited`, for the API's error list (OpenAPI and the typed client). */
export const RateLimitedResponse = envelope(RateLimited, "Too many requests for this token; see Retry-After")

interface Bucket {
  tokens: number
  at: number
}

/** Idle buckets are dropped once there are this many (a full bucket is the same as none). */
const SWEEP_AT = 10_000

/** Who a request is counted against: the token id part of `Bearer <id>|<secret>`, else the remote address. */
const keyOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const authorization = request.headers["authorization"]
  if (authorization !== undefined && authorization.startsWith("Bearer ")) {
    const separator = authorization.indexOf("|", 7)
    return separator === -1 ? "token:malformed" : `token:${authorization.slice(7, Math.min(separator, 7 + 64))}`
  }
  return `address:${request.remoteAddress._tag === "Some" ? request.remoteAddress.value : "unknown"}`
}

type App<E, R> = Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>

export class RateLimits extends Context.Service<RateLimits>()("@support-engine/http/RateLimits", {
  make: Effect.map(RateLimitConfig, ({ burst, perSecond }) => {
    const enabled = perSecond > 0 && burst > 0
    const buckets = new Map<string, Bucket>()
    const policy = `"default";q=${burst};w=${Math.max(1, Math.ceil(burst / perSecond))}`

    const refill = (bucket: Bucket, now: number) => {
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond)
      bucket.at = now
    }

    const sweep = (now: number) => {
      for (const [key, bucket] of buckets) {
        refill(bucket, now)
        if (bucket.tokens >= burst) buckets.delete(key)
      }
    }

    /** Takes one token for `key` at `now`; the headers to send, and whether the request may run. */
    const take = (key: string, now: number) => {
      let bucket = buckets.get(key)
      if (bucket === undefined) {
        if (buckets.size >= SWEEP_AT) sweep(now)
        bucket = { tokens: burst, at: now }
        buckets.set(key, bucket)
      } else {
        refill(bucket, now)
      }
      const allowed = bucket.tokens >= 1
      if (allowed) bucket.tokens -= 1
      const headers: Record<string, string> = {
        "ratelimit-policy": policy,
        "ratelimit": `"default";r=${Math.floor(bucket.tokens)};t=${Math.ceil((burst - bucket.tokens) / perSecond)}`
      }
      if (!allowed) headers["retry-after"] = String(Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)))
      return { allowed, headers }
    }

    /**
     * `app` behind the limit, for `request` arriving at `now` (ms, Effect's `Clock`): the limit's headers go into
     * `headers`, which every answer to the request carries (RequestIds.ts); over the limit the answer is 429 and
     * `app` does not run. Plain code until `app`: it runs on every request.
     */
    const around = <E, R>(
      request: HttpServerRequest.HttpServerRequest,
      now: number,
      headers: Record<string, string>,
      app: App<E, R>
    ): App<E | RateLimited, R> => {
      if (!enabled) return app
      const decision = take(keyOf(request), now)
      Object.assign(headers, decision.headers)
      if (decision.allowed) return app
      const seconds = decision.headers["retry-after"]
      return Effect.fail(new RateLimited({ message: `Too many requests; retry after ${seconds} seconds.` }))
    }

    return { around } as const
  })
}) {
  static readonly layer: Layer.Layer<RateLimits> = Layer.effect(this, this.make)
}
