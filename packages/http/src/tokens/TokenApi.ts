/** `GET /token`: the calling token itself, so a client can see what it may do. */
import { TokenInfo } from "@support-engine/core"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../shared/Authentication.js"
import { NotFoundResponse } from "../shared/ErrorResponses.js"

export class TokenApi extends HttpApiGroup.make("token")
  .add(
    HttpApiEndpoint.get("get", "/token", { success: TokenInfo, error: NotFoundResponse }).annotate(
      OpenApi.Summary,
      "Show the calling token"
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Token")
  .annotate(
    OpenApi.Description,
    "The token the request authenticated with: its name, abilities and times. Any valid token may read itself."
  )
{}
