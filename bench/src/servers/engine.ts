/**
 * support-engine's standalone HTTP server (`StandaloneLive`: engine, storage, HttpApi) as a child process,
 * configured by the environment the parent sets (SUPPORT_DATABASE_URL, SUPPORT_HOST, SUPPORT_PORT). `BENCH_STOCK`
 * (comma-separated seam names, Seams.ts) runs those seams' stock parts instead, for `pnpm bench --seams`.
 */
import { EngineFromEnv, LoggingFromEnv, ServerLive, StandaloneLive, Untraced } from "@support-engine/http"
import { DispatcherBackground } from "@support-engine/webhooks"
import { Effect, Layer } from "effect"
import { seamSwitches, stockFrom, stockSqliteEngine } from "../SeamSwitches.js"

const stock = stockFrom(process.env.BENCH_STOCK)
const server = stock.size === 0
  ? StandaloneLive
  : ServerLive.pipe(
    Layer.provide(
      stock.has("sqlite-client")
        ? stockSqliteEngine(process.env.BENCH_DB ?? "", [DispatcherBackground])
        : EngineFromEnv
    ),
    Layer.provide(Untraced),
    // As StandaloneLive: every variant writes the request log (the parent discards the child's stdout).
    Layer.provide(LoggingFromEnv()),
    // Built first, so that every layer after it, the logger's included, reads the switches.
    Layer.provide(seamSwitches(stock))
  )

Effect.runFork(Layer.launch(server))
