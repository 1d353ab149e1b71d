/** Handler of `GET /token`. */
import { Tokens } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { Api } from "../Api.js"
import type { ApiErrors } from "../shared/ApiErrors.js"
import type { Authentication } from "../shared/Authentication.js"

export const TokenHttpLive: Layer.Layer<
  HttpApiGroup.Service<"support-engine", "token">,
  never,
  Tokens | Authentication | ApiErrors
> = HttpApiBuilder.group(Api, "token", (handlers) =>
  Effect.gen(function*() {
    const tokens = yield* Tokens
    return handlers.handle("get", () => tokens.current())
  }))
