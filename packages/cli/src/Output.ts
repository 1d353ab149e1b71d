/**
 * What the CLI prints: results on stdout (one JSON object with `--json`, D40, else a short sentence), failures on
 * stderr as one readable message, validation failures with one line per option.
 */
import { ValidationError } from "@support-engine/core"
import { Cause, ConfigError, Console, Effect, Predicate, Schema } from "effect"

/** `value` in the API's wire form (snake_case, D6 timestamps). */
export const encoded = <A, I>(schema: Schema.Schema<A, I>, value: A): Effect.Effect<I> =>
  Effect.orDie(Schema.encode(schema)(value))

/** One JSON object on one line of stdout (D40). */
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

/**
 * Whether @effect/cli has already printed this failure (with the usage it came from): its
 * `ValidationError.isValidationError`, by the type id, since importing @effect/cli here would load it at every start
 * of `serve`, which does not use it (main.ts).
 */
const isUsageError = (u: unknown): boolean => Predicate.hasProperty(u, Symbol.for("@effect/cli/ValidationError"))

const hasMessage = (u: unknown): u is { readonly message: string } =>
  Predicate.hasProperty(u, "message") && typeof u.message === "string" && u.message.length > 0

/** One failure as the text printed on stderr; `undefined` when there is nothing left to say. */
export const renderFailure = (error: unknown): string | undefined => {
  if (isUsageError(error)) return undefined
  if (error instanceof ValidationError) {
    const lines = Object.entries(error.errors).map(([field, messages]) => `  ${field}: ${messages.join("; ")}`)
    return ["Error: invalid input.", ...lines].join("\n")
  }
  if (ConfigError.isConfigError(error)) return `Error: invalid configuration: ${String(error)}`
  if (Predicate.isTagged(error, "PersistenceError") && Predicate.hasProperty(error, "reason")) {
    // The HTTP face hides the reason (D12); the operator running the CLI is who needs it.
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
  Effect.tapErrorCause(self, (cause) => {
    if (Cause.isInterruptedOnly(cause)) return Effect.void
    const failures = [...Cause.failures(cause)]
    if (failures.length === 0) return Console.error(`Unexpected error:\n${Cause.pretty(cause)}`)
    const text = failures.map(renderFailure).filter(Predicate.isNotUndefined)
    return text.length === 0 ? Effect.void : Console.error(text.join("\n"))
  })

/**
 * A token as a line to paste into a shell. Token values are `<id>|<secret>` (D9, kept so existing tokens work), and
 * an unquoted `|` is a pipe; a token holds no `'`, so single quotes keep it whole (docs/decisions.md "First run").
 */
export const exportLine = (token: string): string => `export SUPPORT_TOKEN='${token}'`

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g")
const plainArgs = (args: ReadonlyArray<unknown>) =>
  args.map((arg) => typeof arg === "string" ? arg.replace(ANSI, "") : arg)

/**
 * @effect/cli renders help and usage errors with colour codes whatever the output is; piped into a file or `less`
 * they are noise. Without a terminal on the stream (or with `NO_COLOR` set), what it writes there is stripped.
 */
export const withoutColourUnlessTerminal = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const noColor = process.env["NO_COLOR"] !== undefined && process.env["NO_COLOR"] !== ""
  const plainOut = noColor || process.stdout.isTTY !== true
  const plainErr = noColor || process.stderr.isTTY !== true
  if (!plainOut && !plainErr) return self
  return Console.consoleWith((base) => {
    const strip = (plain: boolean) => (args: ReadonlyArray<unknown>) => plain ? plainArgs(args) : args
    const [out, err] = [strip(plainOut), strip(plainErr)]
    const unsafe: Console.UnsafeConsole = {
      ...base.unsafe,
      log: (...args) => base.unsafe.log(...out(args)),
      error: (...args) => base.unsafe.error(...err(args))
    }
    return Effect.withConsole(self, {
      ...base,
      log: (...args) => base.log(...out(args)),
      error: (...args) => base.error(...err(args)),
      unsafe
    })
  })
}
