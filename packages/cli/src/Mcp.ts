/**
 * `support-engine mcp`: the Model Context Protocol server over stdio for one API token, from `--token` or
 * `SUPPORT_TOKEN`. An MCP client (Claude Desktop, Claude Code, Cursor) starts it as a child process and talks on its
 * standard input and output; logs go to standard error. It runs the engine without background work, like the
 * provisioning commands: the servers' workers deliver webhooks and AI replies for what the tools write.
 */
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { Tokens, Unauthenticated } from "@support-engine/core"
import { mcpStdio } from "@support-engine/http"
import { Config, Effect, Layer, Logger, Option, Redacted } from "effect"
import { ProvisioningEngine } from "./Engine.js"

/** The token to serve: `--token` first, else `SUPPORT_TOKEN`. */
const tokenFrom = (flag: Option.Option<string>) =>
  Option.match(flag, {
    onSome: (token) => Effect.succeed(Redacted.make(token)),
    onNone: () =>
      Config.Redacted("SUPPORT_TOKEN").pipe(
        Config.option,
        Effect.flatMap(Option.match({
          onSome: Effect.succeed,
          onNone: () =>
            Effect.fail(
              new Unauthenticated({ message: "no token: pass --token or set SUPPORT_TOKEN to an API token." })
            )
        }))
      )
  })

/**
 * Serves until the client closes standard input or the process is stopped. A token that is not accepted stops it
 * before it serves, with the reason on standard error.
 */
export const mcp = (flag: Option.Option<string>) =>
  Effect.gen(function*() {
    const token = yield* tokenFrom(flag)
    const engine = yield* Layer.build(ProvisioningEngine)
    yield* Effect.flatMap(Tokens, (tokens) => tokens.authenticate(token)).pipe(
      Effect.catchTag("Unauthenticated", () =>
        Effect.fail(
          new Unauthenticated({ message: "the token was not accepted (it is unknown, expired or revoked)." })
        )),
      Effect.provide(engine)
    )
    return yield* Layer.launch(
      mcpStdio(token).pipe(Layer.provide(NodeStdio.layer), Layer.provide(Layer.succeedContext(engine)))
    )
  }).pipe(Effect.scoped, Effect.withTracerEnabled(false), Effect.provide(Layer.succeed(Logger.LogToStderr, true)))
