/**
 * Speed seam (the request log): the JSON line of a log entry, byte for byte the line of Effect's `Logger.jsonLogger`,
 * written with the native `JSON.stringify` when it can be.
 *
 * `jsonLogger` serialises every line through `Inspectable.stringifyCircular`: `JSON.stringify` with a replacer that
 * is called for every key and value and keeps a list of the objects it has seen, and it names the fiber through a
 * `HashSet` of its ids. Every request writes a line (RequestLog.ts), and the request line holds only a string message
 * and plain annotations (ids, the method, the route, the status, the duration): for such a line the replacer changes
 * nothing, so the native `JSON.stringify` of the same object writes the same bytes without it. Any other entry (a
 * cause, spans, an object or array in the message or the annotations, a value with `toJSON`, a redactable value)
 * goes to `jsonLogger` itself. `test/JsonLogLines.test.ts` checks that both write the same lines.
 */
import { Cause, FiberId, FiberRef, List, Logger } from "effect"
import { globalValue } from "effect/GlobalValue"

/** The seam's switch, read when the logging layer is built: `false` keeps `Logger.jsonLogger` (A/B). */
export const JsonLogLinesSeam: FiberRef.FiberRef<boolean> = globalValue(
  Symbol.for("@support-engine/http/JsonLogLinesSeam"),
  () => FiberRef.unsafeMake(true)
)

/** A value `jsonLogger` writes as the native `JSON.stringify` does: it has no `toJSON` and holds nothing. */
const isPlain = (value: unknown): boolean =>
  value === null || value === undefined || typeof value === "string" || typeof value === "number" ||
  typeof value === "boolean"

/** The message of a plain entry: one string (`Effect.log("x")` passes `["x"]`); otherwise undefined. */
const plainMessage = (message: unknown): string | undefined => {
  if (typeof message === "string") return message
  return Array.isArray(message) && message.length === 1 && typeof message[0] === "string" ? message[0] : undefined
}

/** `FiberId.threadName` of a runtime fiber id (`#12`), without building the set of its ids. */
const threadName = (fiberId: FiberId.FiberId): string =>
  fiberId._tag === "Runtime" ? `#${fiberId.id}` : FiberId.threadName(fiberId)

/** The entry's line as `Logger.jsonLogger` writes it, or undefined when it is not plain (see the module comment). */
const plainLine = (options: Logger.Logger.Options<unknown>): string | undefined => {
  const message = plainMessage(options.message)
  if (message === undefined || !Cause.isEmpty(options.cause) || List.isCons(options.spans)) return undefined
  const annotations: Record<string, unknown> = {}
  for (const [key, value] of options.annotations) {
    if (!isPlain(value)) return undefined
    annotations[key] = value
  }
  // The keys in jsonLogger's order; an empty cause is `undefined` there too, which JSON leaves out.
  return JSON.stringify({
    message,
    logLevel: options.logLevel.label,
    timestamp: options.date.toISOString(),
    cause: undefined,
    annotations,
    spans: {},
    fiberId: threadName(options.fiberId)
  })
}

/** `Logger.jsonLogger`'s lines, plain ones written natively. */
export const jsonLogLines: Logger.Logger<unknown, string> = Logger.make((options) =>
  plainLine(options) ?? Logger.jsonLogger.log(options)
)
