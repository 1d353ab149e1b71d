#!/usr/bin/env node
/**
 * The `support-engine` executable. Failures are printed by `reportFailure` (usage errors by @effect/cli itself),
 * so the runtime's own error report is off; it still exits 1 on failure and 0 on SIGINT/SIGTERM.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { run } from "./Commands.js"
import { reportFailure } from "./Output.js"

run(process.argv).pipe(
  reportFailure,
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
