/**
 * The API's request metrics, recorded once per answered request beside its log line (RequestIds.ts):
 * `support_http_requests_total{method,route,status}` and `support_http_request_duration_seconds{route}`. `route` is
 * the route template (`/v1/customers/:id`), a system route's path, or `unmatched`: never the path a client sent,
 * which carries ids and would make a series per resource.
 */
import { type Context, Metric } from "effect"

/** `support_http_requests_total{method,route,status}`. */
export const httpRequestsTotal = Metric.counter("support_http_requests_total", {
  description: "HTTP requests answered, by method, route template and status",
  incremental: true
})

const COUNTER_OPTIONS = { description: httpRequestsTotal.description, incremental: true } as const

const DURATION_BOUNDARIES = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** `support_http_request_duration_seconds{route}`: from the request's arrival until its answer is ready. */
export const httpRequestDurationSeconds = Metric.histogram("support_http_request_duration_seconds", {
  description: "Time to answer an HTTP request, by route template",
  boundaries: DURATION_BOUNDARIES
})

/** What a request without a matched route is recorded as. */
export const UNMATCHED_ROUTE = "unmatched"

/**
 * Labelled series made once per label set: building the attributes on every request costs more than the updates
 * (the registry sorts and serialises them to find the series). Routes, methods and statuses are few. Each series is
 * a metric of the same name made with its attributes, not `Metric.withAttributes` of the one above: that adds the
 * attributes to the context on every update.
 */
const counters = new Map<string, Metric.Metric<number, Metric.CounterState<number>>>()
const histograms = new Map<string, Metric.Metric<number, Metric.HistogramState>>()

const counterFor = (method: string, route: string, status: number) => {
  const key = `${method} ${route} ${status}`
  let series = counters.get(key)
  if (series === undefined) {
    series = Metric.counter(httpRequestsTotal.id, {
      ...COUNTER_OPTIONS,
      attributes: { method, route, status: String(status) }
    })
    counters.set(key, series)
  }
  return series
}

const histogramFor = (route: string) => {
  let series = histograms.get(route)
  if (series === undefined) {
    series = Metric.histogram(httpRequestDurationSeconds.id, {
      description: httpRequestDurationSeconds.description,
      boundaries: DURATION_BOUNDARIES,
      attributes: { route }
    })
    histograms.set(route, series)
  }
  return series
}

/**
 * Records one answered request in the metrics of `context` (the request fiber's): plain calls on the series, no
 * effect of their own, since it runs inside the request's one pre-response step (RequestIds.ts) on every request.
 */
export const recordRequestUnsafe = (
  method: string,
  route: string | null,
  status: number,
  seconds: number,
  context: Context.Context<never>
): void => {
  const template = route ?? UNMATCHED_ROUTE
  counterFor(method, template, status).updateUnsafe(1, context)
  histogramFor(template).updateUnsafe(seconds, context)
}
