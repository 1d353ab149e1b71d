/**
 * Runs the `support-engine` command line. Failures are printed by `reportFailure` (usage errors by `effect/cli`
 * itself), so the runtime's own error report is off; it still exits 1 on failure and 0 on SIGINT/SIGTERM.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Effect, Exit, Runtime } from "effect"
import { reportFailure, withoutColourUnlessTerminal } from "./Output.js"
import { serve } from "./Serve.js"

/**
 * `support-engine serve` with nothing else, the command `pnpm start` runs, goes straight to `serve`: parsing it with
 * `effect/cli` gives the same program, but building and parsing the command tree costs part of every start. Every
 * other command line, `serve --help` included, is `effect/cli`'s, loaded when needed.
 */
const program = (argv: ReadonlyArray<string>) =>
  argv.length === 3 && argv[2] === "serve"
    ? serve
    : Effect.flatMap(Effect.promise(() => import("./Commands.js")), ({ run }) => run(argv)).pipe(
      withoutColourUnlessTerminal
    )

/**
 * Exit codes: 0 when stopped by SIGINT/SIGTERM (a server told to stop has done its job; the runtime's default is 130),
 * otherwise the runtime's (0 on success, 1 on failure, or what the error carries: `effect/cli` exits 0 after help
 * shown for a command line without a subcommand).
 */
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

export const main = (argv: ReadonlyArray<string>): void =>
  program(argv).pipe(
    reportFailure,
    Effect.provide(NodeServices.layer),
    NodeRuntime.runMain({ disableErrorReporting: true, teardown })
  )
