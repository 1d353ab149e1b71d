/**
 * The HTTP load driver: autocannon with every connection opened and warmed before the measured window
 * (Node accepts new connections slowly while busy, which otherwise shows as a false multi-second p99).
 * Only responses completed inside the window count; latency percentiles come from those responses.
 */
import autocannon from "autocannon"
import type { EventEmitter } from "node:events"
import { performance } from "node:perf_hooks"

export interface HttpRequestSpec {
  readonly method: "GET" | "POST"
  readonly path: () => string
  readonly headers: Record<string, string>
  readonly body?: () => string
}

export interface LoadResult {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly count: number
  /** Responses outside 2xx, plus socket errors and timeouts, inside the window. */
  readonly failures: number
}

export const percentile = (sorted: ArrayLike<number>, p: number): number => {
  if (sorted.length === 0) return Number.NaN
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[index]!
}

export const load = (options: {
  readonly baseUrl: string
  readonly connections: number
  readonly warmupMs: number
  readonly measureMs: number
  readonly request: HttpRequestSpec
}): Promise<LoadResult> =>
  new Promise((resolve, reject) => {
    const { request } = options
    const latencies: Array<number> = []
    let failures = 0
    const started = performance.now()
    const windowStart = started + options.warmupMs
    const windowEnd = windowStart + options.measureMs
    const instance = autocannon({
      url: options.baseUrl,
      connections: options.connections,
      pipelining: 1,
      // Seconds; a little past the window so no connection is closing while it is measured.
      duration: (options.warmupMs + options.measureMs) / 1000 + 0.25,
      timeout: 10,
      requests: [{
        method: request.method,
        headers: request.headers,
        setupRequest: (req) => ({
          ...req,
          path: request.path(),
          ...(request.body === undefined ? {} : { body: request.body() })
        })
      }]
    }, (error) => {
      if (error !== null && error !== undefined) return reject(error)
      latencies.sort((a, b) => a - b)
      resolve({
        rps: latencies.length / (options.measureMs / 1000),
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        count: latencies.length,
        failures
      })
    })
    // @types/autocannon declares the listener without its first argument (the client); the tracker is an
    // EventEmitter, so it is listened to as one.
    const tracker = instance as unknown as EventEmitter
    tracker.on("response", (_client: unknown, status: number, _bytes: number, responseTime: number) => {
      const at = performance.now()
      if (at < windowStart || at >= windowEnd) return
      latencies.push(responseTime)
      if (status < 200 || status >= 300) failures++
    })
    tracker.on("reqError", () => {
      const at = performance.now()
      if (at >= windowStart && at < windowEnd) failures++
    })
  })
