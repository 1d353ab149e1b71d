/**
 * support-engine's standalone HTTP server (`StandaloneLive`: engine, storage, HttpApi) as a child process,
 * configured by the environment the parent sets (SUPPORT_DATABASE_URL, SUPPORT_HOST, SUPPORT_PORT).
 */
import { StandaloneLive } from "@support-engine/http"
import { Effect, Layer } from "effect"

Effect.runFork(Layer.launch(StandaloneLive))
