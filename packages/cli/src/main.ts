/**
 * Runs the `support-engine` command line. Failures are printed by `reportFailure` (usage errors by @effect/cli
 * itself), so the runtime's own error report is off; it still exits 1 on failure and 0 on SIGINT/SIGTERM.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { reportFailure, withoutColourUnlessTerminal } from "./Output.js"
import { serve } from "./Serve.js"

/**
 * `support-engine serve` with nothing else, the command `pnpm start` runs, goes straight to `serve`: parsing it with
 * @effect/cli gives the same program, but building and parsing the command tree took 20-40 ms of the start, and
 * loading @effect/cli (with yaml, toml and its printers) more. Every other command line, `serve --help` included,
 * is @effect/cli's, loaded when needed.
 */
const program = (argv: ReadonlyArray<string>) =>
  argv.length === 3 && argv[2] === "serve"
    ? serve
    : Effect.flatMap(Effect.promise(() => import("./Commands.js")), ({ run }) => run(argv)).pipe(
      withoutColourUnlessTerminal
    )

export const main = (argv: ReadonlyArray<string>): void =>
  program(argv).pipe(
    reportFailure,
    Effect.provide(NodeContext.layer),
    NodeRuntime.runMain({ disableErrorReporting: true })
  )
