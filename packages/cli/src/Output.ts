/**
 * What the CLI prints: results on stdout (one JSON object with `--json`, else a short sentence), failures on
 * stderr as one readable message, validation failures with one line per option.
 */
import { ValidationError } from "@support-engine/core"
import { Cause, Config, Console, Effect, Predicate, Schema, Stdio } from "effect"
// The modules themselves, not the `effect/cli` index: the index would load the whole parser at every start of
// `serve`, which does not use it (main.ts).
import * as CliError from "effect/cli/CliError"
import * as CliOutput from "effect/cli/CliOutput"
import * as TerminalCapabilities from "effect/cli/TerminalCapabilities"

/** `value` in the API's wire form (snake_case, RFC 3339 UTC timestamps with milliseconds). */
export const encoded = <A, I>(schema: Schema.Codec<A, I>, value: A): Effect.Effect<I> =>
  Effect.orDie(Schema.encodeEffect(schema)(value))

/** One JSON object on one line of stdout. */
export const printJson = (value: unknown): Effect.Effect<void> => Console.log(JSON.stringify(value))

/**
 * Renames the request fields of a validation error to the options the user typed (`workspace_id` to
 * `--workspace`); a field without an entry becomes `--<field with dashes>`. The index of a nested key
 * (`abilities.0`) is dropped: the user typed one `--ability`, not a list; the same message for two of them is
 * printed once.
 */
export const asOptions = (options: Readonly<Record<string, string>>) => (error: ValidationError): ValidationError => {
  const errors: Record<string, Array<string>> = {}
  for (const [field, messages] of Object.entries(error.errors)) {
    const root = field.split(".")[0]!
    const option = options[root] ?? `--${root.replace(/_/g, "-")}`
    const list = (errors[option] ??= [])
    for (const message of messages) if (!list.includes(message)) list.push(message)
  }
  return new ValidationError({ errors })
}

const hasMessage = (u: unknown): u is { readonly message: string } =>
  Predicate.hasProperty(u, "message") && typeof u.message === "string" && u.message.length > 0

/** One failure as the text printed on stderr; `undefined` when there is nothing left to say. */
export const renderFailure = (error: unknown): string | undefined => {
  // The command-line parser's own errors: `Command.runWith` has printed them, with the usage they came from.
  if (CliError.isCliError(error)) return undefined
  if (error instanceof ValidationError) {
    const lines = Object.entries(error.errors).map(([field, messages]) => `  ${field}: ${messages.join("; ")}`)
    return ["Error: invalid input.", ...lines].join("\n")
  }
  if (error instanceof Config.ConfigError) return `Error: invalid configuration: ${String(error)}`
  if (Predicate.isTagged(error, "PersistenceError") && Predicate.hasProperty(error, "reason")) {
    // The HTTP face hides the reason behind `Internal server error.`; the operator running the CLI is who needs it.
    return `Error: the database failed: ${String(error.reason)}`
  }
  if (Predicate.isTagged(error, "ServeError") && Predicate.hasProperty(error, "cause") && hasMessage(error.cause)) {
    return `Error: the HTTP server could not start: ${error.cause.message}`
  }
  if (hasMessage(error)) return `Error: ${error.message}`
  return `Error: ${String(error)}`
}

/**
 * Reports a failed command on stderr without handling it: the failure still ends the program, so the exit code
 * stays non-zero. An interruption (SIGINT/SIGTERM) prints nothing.
 */
export const reportFailure = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tapCause(self, (cause) => {
    if (Cause.hasInterruptsOnly(cause)) return Effect.void
    const failures = cause.reasons.filter(Cause.isFailReason)
    if (failures.length === 0) return Console.error(`Unexpected error:\n${Cause.pretty(cause)}`)
    const text = failures.map((failure) => renderFailure(failure.error)).filter(Predicate.isNotUndefined)
    return text.length === 0 ? Effect.void : Console.error(text.join("\n"))
  })

/**
 * A token as a line to paste into a shell. Token values are `<id>|<secret>` (kept so existing tokens work), and
 * an unquoted `|` is a pipe; a token holds no `'`, so single quotes keep it whole (docs/decisions.md "First run").
 */
export const exportLine = (token: string): string => `export SUPPORT_TOKEN='${token}'`

/**
 * `effect/cli`'s help and usage errors with colour codes only on a terminal: help goes to stdout, coloured when
 * `TerminalCapabilities` says it can be (stdout a terminal, no `NO_COLOR`); usage errors go to stderr, coloured only
 * when stderr is a terminal too (`effect/cli` alone decides both by stdout). Piped into a file or `less`, colour codes
 * are noise.
 */
export const withoutColourUnlessTerminal = <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | Stdio.Stdio> =>
  Effect.gen(function*() {
    const { canColor } = yield* TerminalCapabilities.TerminalCapabilities
    const out = CliOutput.defaultFormatter({ colors: canColor })
    const err = CliOutput.defaultFormatter({ colors: canColor && (yield* (yield* Stdio.Stdio).stderrIsTerminal) })
    const presenter: CliOutput.Presenter = {
      present: (event) => {
        switch (event._tag) {
          case "Help":
            return Console.log(out.formatHelpDoc(event.helpDoc))
          case "InvalidInvocation":
            return Effect.andThen(
              Console.log(out.formatHelpDoc(event.helpDoc)),
              Console.error(err.formatErrors(event.errors))
            )
          case "Version":
            return Console.log(out.formatVersion(event.name, event.version))
        }
      }
    }
    return yield* Effect.provideService(self, CliOutput.Presenter, presenter)
  })
