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
import { Context, Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { requirementOf } from "./Abilities.js"
import { InsufficientAbilityResponse, PersistenceErrorResponse, UnauthenticatedResponse } from "./ErrorResponses.js"
import { recordRouteOf } from "./RequestLog.js"

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
      // Plain code around the token's statement, in one step: it runs on every authenticated request.
      bearer: (httpEffect, { credential, endpoint, group }) =>
        Effect.withFiber((fiber) => {
          // Every route but /health and the documents is authenticated: here the request log learns its route.
          const facts = recordRouteOf(fiber)
          const header = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest).headers["authorization"]
          if (header === undefined || header.trim() === "") {
            return Effect.fail(new Unauthenticated({ message: UNAUTHENTICATED_MESSAGES.missing }))
          }
          if (!BEARER.test(header)) {
            return Effect.fail(new Unauthenticated({ message: UNAUTHENTICATED_MESSAGES.malformed }))
          }
          return Effect.flatMap(
            Effect.catchTag(
              tokens.authenticate(credential),
              "Unauthenticated",
              () => Effect.fail(new Unauthenticated({ message: UNAUTHENTICATED_MESSAGES.rejected }))
            ),
            (
              principal
            ): Effect.Effect<
              Effect.Success<typeof httpEffect>,
              InsufficientAbility | Effect.Error<typeof httpEffect>
            > => {
              if (facts !== undefined) facts.workspaceId = principal.workspaceId
              const requirement = requirementOf(group.identifier, endpoint.identifier, endpoint.method)
              if (requirement !== null && !permits(principal, requirement)) {
                return Effect.fail(
                  InsufficientAbility.lacking(resourceAbility(requirement), broadAbility(requirement.access))
                )
              }
              return Effect.provideService(httpEffect, Principal, principal)
            }
          )
        })
    })
  })
)
