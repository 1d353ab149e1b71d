/**
 * How the standalone server writes its logs (docs/configuration.md "Logs"): Effect's `Logger`, as JSON
 * lines (one object per line, for log collectors) or pretty (colours and indentation, for people), and at which
 * level. JSON lines are Effect's `formatJson`, written in batches (`batchedLines`), so that the request log costs no
 * write per request.
 */
import { Config, Effect, Layer, Logger, type LogLevel, Option, References, type Scope } from "effect"

/** `json` lines or `pretty` text. */
export type LogFormat = "json" | "pretty"

export interface LogSettings {
  /** None: pretty on a terminal, JSON otherwise. */
  readonly format: Option.Option<LogFormat>
  /** None: Effect's default (info), or what the command line set (`--log-level`). */
  readonly level: Option.Option<LogLevel.LogLevel>
}

const LEVELS = {
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warning: "Warn",
  error: "Error",
  none: "None"
} as const satisfies Record<string, LogLevel.LogLevel>

/** `SUPPORT_LOG_FORMAT` (`json`, `pretty`) and `SUPPORT_LOG_LEVEL` (`trace` ... `error`, `none`). */
export const logConfig: Config.Config<LogSettings> = Config.all({
  format: Config.option(Config.Literals(["json", "pretty"], "SUPPORT_LOG_FORMAT")),
  level: Config.option(
    Config.map(
      Config.Literals(["trace", "debug", "info", "warning", "error", "none"], "SUPPORT_LOG_LEVEL"),
      (name) => LEVELS[name]
    )
  )
})

/**
 * JSON lines written together: the first line of a batch schedules one `write` of the whole batch `windowMs` later,
 * and closing the scope writes whatever is still waiting. Nothing is scheduled while nothing is logged, so an idle
 * server does not wake up for its logger; Effect's `Logger.batched` sleeps and wakes once a window for as long as it
 * runs, lines or not (a hundred times a second at 10 ms). The window is wall-clock time on purpose: it only groups
 * writes, and lines must reach the output under a test's `TestClock` too.
 */
export const batchedLines = (
  write: (text: string) => void,
  windowMs: number
): Effect.Effect<Logger.Logger<unknown, void>, never, Scope.Scope> =>
  Effect.gen(function*() {
    let waiting: Array<string> = []
    let timer: ReturnType<typeof setTimeout> | undefined
    const flush = () => {
      clearTimeout(timer)
      timer = undefined
      if (waiting.length === 0) return
      const batch = waiting
      waiting = []
      try {
        write(`${batch.join("\n")}\n`)
      } catch {
        // A write that throws (a closed output) loses its batch; thrown from a timer it would end the process, and
        // the next batch may find the output back.
      }
    }
    yield* Effect.addFinalizer(() => Effect.sync(flush))
    return Logger.map(Logger.formatJson, (line) => {
      waiting.push(line)
      timer ??= setTimeout(flush, windowMs)
    })
  })

/** `process.stdout` is synchronous on pipes and files. */
const writeStdout = (text: string) => {
  process.stdout.write(text)
}

/**
 * The logger `format` names, in place of Effect's default logger (and of any other, such as the pretty one a
 * runtime's `runMain` may install, which would write every line twice); JSON lines written 10 ms after the first
 * of a batch, and when the scope closes.
 */
const loggerFor = (format: LogFormat): Layer.Layer<never> =>
  format === "pretty"
    ? Logger.layer([Logger.consolePretty()])
    : Logger.layer([batchedLines(writeStdout, 10)])

/** The logger and level of `settings` (a format given on the command line wins over the environment's). */
export const loggingLayer = (settings: LogSettings): Layer.Layer<never> => {
  const format = Option.getOrElse(settings.format, (): LogFormat => process.stdout.isTTY === true ? "pretty" : "json")
  return Option.match(settings.level, {
    onNone: () => loggerFor(format),
    onSome: (level) => Layer.merge(loggerFor(format), Layer.succeed(References.MinimumLogLevel, level))
  })
}

/** The logger of `SUPPORT_LOG_FORMAT` and `SUPPORT_LOG_LEVEL`, with `format` (from `--log-format`) first. */
export const LoggingFromEnv = (format: Option.Option<LogFormat> = Option.none()): Layer.Layer<
  never,
  Config.ConfigError
> =>
  Layer.unwrap(
    Effect.map(logConfig, (settings) =>
      loggingLayer({ ...settings, format: Option.orElse(format, () => settings.format) }))
  )
