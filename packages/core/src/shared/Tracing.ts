/**
 * Spans of the engine's service methods.
 *
 * `fn(name)` defines a method as `Effect.fn(name)` does, with one difference: a call made while the calling fiber
 * does not trace (`References.TracerEnabled` off, as in the standalone server and the Promise API unless traces are
 * exported) runs its body as `Effect.fnUntraced` would, without a span and without recording its call site. A
 * traced call gets what `Effect.fn` gives it: the method's span, and the stack frames of its call site and of its
 * definition (the service's file), which a failure's trace shows. Recording a call site captures a JavaScript stack
 * on every call, and the frames are added to the fiber's context; on the standalone server that was about a tenth of
 * the CPU of `GET /v1/customers/{id}` (docs/performance.md, "Speed seams").
 */
import { Effect, Fiber, References, Tracer } from "effect"

const noStack = (): string | undefined => undefined

/** Whether the current fiber traces. */
export const enabled: Effect.Effect<boolean> = References.TracerEnabled

/**
 * A stack captured here, three frames deep (this function, its caller, whoever called that), and the line of the
 * last of them, read when first asked for, as `Effect.fn` reads its own. None where stack traces are off
 * (`Error.stackTraceLimit` 0), as with `Effect.fn`.
 */
const stackLine = (): () => string | undefined => {
  const limit = Error.stackTraceLimit
  if (limit === 0) return noStack
  Error.stackTraceLimit = 3
  const error = new Error()
  Error.stackTraceLimit = limit
  let line: string | undefined
  // Lines: the message, this function, the function that called it, whoever called that.
  return () => line ??= error.stack?.split("\n")[3]?.trim()
}

/**
 * `Effect.fn(name)`, but untraced while the calling fiber does not trace (see the module comment). A call from
 * outside any fiber is traced.
 */
export const fn = (name: string): Effect.fn.Traced =>
  ((...definition: Parameters<Effect.fn.Untraced>) => {
    // Called from the service's file: the definition frame names it, as `Effect.fn`'s does.
    const definitionStack = stackLine()
    const definitionName = `${name} (definition)`
    const untraced = (Effect.fnUntraced as (
      ...definition: ReadonlyArray<unknown>
    ) => (...args: Array<unknown>) => Effect.Effect<unknown, unknown, unknown>)(...definition)
    return function(this: unknown, ...args: Array<unknown>) {
      const effect = untraced.apply(this, args)
      const fiber = Fiber.getCurrent()
      if (fiber !== undefined && !fiber.getRef(References.TracerEnabled)) return effect
      const callStack = stackLine()
      return Effect.useSpan(name, (span) => Effect.provideService(effect, Tracer.ParentSpan, span)).pipe(
        Effect.updateService(References.CurrentStackFrame, (parent) => ({
          name,
          stack: callStack,
          parent: { name: definitionName, stack: definitionStack, parent }
        }))
      )
    }
  }) as Effect.fn.Traced
