/**
 * Bearer authentication (D9-D11): one security scheme whose handler resolves the token to core's `Principal`.
 * The ability the method needs is checked here as well as in core, because D11 puts 403 before request
 * validation and HttpApi validates the request before a handler (and so core) runs.
 */
import { type Ability, hasAbility, InsufficientAbility, Principal, Tokens, Unauthenticated } from "@support-engine/core"
import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { InsufficientAbilityResponse, PersistenceErrorResponse, UnauthenticatedResponse } from "./ErrorResponses.js"
import { recordRoute, recordWorkspace } from "./RequestLog.js"

export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: Principal }>()(
  "@support-engine/http/Authentication",
  {
    error: [UnauthenticatedResponse, InsufficientAbilityResponse, PersistenceErrorResponse],
    security: {
      bearer: HttpApiSecurity.bearer.pipe(
        HttpApiSecurity.annotate(
          OpenApi.Description,
          "A workspace API token (`<token id>|<secret>`). GET needs external-api:read; POST, PUT, PATCH and " +
            "DELETE need external-api:write, which also grants read."
        )
      )
    }
  }
) {}

/** POSTs that only read: asking an agent, and a suggested reply or a summary of a conversation, store nothing. */
const READ_ONLY_POST = /\/(?:agents\/[^/?]+\/ask|conversations\/[^/?]+\/(?:suggest-reply|summarize))(?:\?|$)/

/** D10: reads need read, everything else needs write (the ask, suggest-reply and summarize endpoints read). */
export const abilityFor = (method: string, url = ""): Ability =>
  method === "GET" || method === "HEAD" || method === "OPTIONS" || (method === "POST" && READ_ONLY_POST.test(url))
    ? "external-api:read"
    : "external-api:write"

/** `Bearer <token id>|<secret>` (D9): a UUID, a bar, then the secret's URL-safe characters. */
const BEARER = /^bearer [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\|[A-Za-z0-9_-]+$/i

/**
 * The three 401s a new user can tell apart (issue 15 item 8): no header, a header that cannot hold a token, and a
 * well-formed token that is not accepted. The last is one message for unknown, wrong, expired and revoked tokens,
 * so a caller learns nothing about which tokens exist (D9).
 */
export const UNAUTHENTICATED_MESSAGES = {
  missing: "Unauthenticated: the request has no Authorization header; send `Authorization: Bearer <token>`.",
  malformed: "Unauthenticated: the Authorization header is malformed; expected `Bearer <token id>|<secret>`.",
  rejected: "Unauthenticated: the token was not accepted (it is unknown, expired or revoked)."
} as const

export const AuthenticationLive: Layer.Layer<Authentication, never, Tokens> = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const tokens = yield* Tokens
    return Authentication.of({
      bearer: (httpEffect, { credential }) =>
        Effect.gen(function*() {
          // Every route but /health and the documents is authenticated: here the request log learns its route.
          yield* recordRoute
          const request = yield* HttpServerRequest.HttpServerRequest
          const header = request.headers["authorization"]
          if (header === undefined || header.trim() === "") {
            return yield* new Unauthenticated({ message: UNAUTHENTICATED_MESSAGES.missing })
          }
          if (!BEARER.test(header)) return yield* new Unauthenticated({ message: UNAUTHENTICATED_MESSAGES.malformed })
          const principal = yield* tokens.authenticate(credential).pipe(
            Effect.catchTag(
              "Unauthenticated",
              () => new Unauthenticated({ message: UNAUTHENTICATED_MESSAGES.rejected })
            )
          )
          yield* recordWorkspace(principal.workspaceId)
          const ability = abilityFor(request.method, request.url)
          if (!hasAbility(principal, ability)) return yield* new InsufficientAbility({ ability })
          return yield* Effect.provideService(httpEffect, Principal, principal)
        })
    })
  })
)
