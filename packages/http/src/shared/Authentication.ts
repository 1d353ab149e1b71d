/**
 * Bearer authentication: one security scheme whose handler resolves the token to core's `Principal`.
 * The ability the endpoint needs (Abilities.ts) is checked here as well as in core, because 403 comes before
 * request validation and HttpApi validates the request before a handler (and so core) runs.
 */
import {
  broadAbility,
  InsufficientAbility,
  permits,
  Principal,
  resourceAbility,
  Tokens,
  Unauthenticated
} from "@support-engine/core"
import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { requirementOf } from "./Abilities.js"
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
          "A workspace API token (`<token id>|<secret>`). Each operation lists the abilities that allow it " +
            "(`x-required-abilities`): the resource's own (`customers:read`) or the broad one (`external-api:read`); " +
            "a write ability also grants read."
        )
      )
    }
  }
) {}

/** `Bearer <token id>|<secret>`: a UUID, a bar, then the secret's URL-safe characters. */
const BEARER = /^bearer [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\|[A-Za-z0-9_-]+$/i

/**
 * The three 401s a new user can tell apart: no header, a header that cannot hold a token, and a
 * well-formed token that is not accepted. The last is one message for unknown, wrong, expired and revoked tokens,
 * so a caller learns nothing about which tokens exist.
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
      bearer: (httpEffect, { credential, endpoint, group }) =>
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
          const requirement = requirementOf(group.identifier, endpoint.identifier, endpoint.method)
          if (requirement !== null && !permits(principal, requirement)) {
            return yield* InsufficientAbility.lacking(resourceAbility(requirement), broadAbility(requirement.access))
          }
          return yield* Effect.provideService(httpEffect, Principal, principal)
        })
    })
  })
)
