/**
 * What a request no route matched gets: 405 with `Allow` when another method has this path, else 404.
 * The router, like this, ignores a trailing slash.
 */
import { Context, Effect, Layer } from "effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi } from "effect/http-api"
import { Api } from "../Api.js"
import { HttpFailure, renderHttpFailure } from "./ErrorResponses.js"

/** The paths the system routes answer beside the API (Docs.ts). */
export const SYSTEM_PATHS = ["/health", "/ready", "/openapi.json", "/docs"] as const

interface KnownRoute {
  readonly method: string
  readonly pattern: RegExp
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const compile = (path: string): RegExp =>
  new RegExp(
    `^${path.split("/").map((segment) => segment.startsWith(":") ? "[^/]+" : escapeRegExp(segment)).join("/")}/?$`
  )

const knownRoutes = (): ReadonlyArray<KnownRoute> => {
  const routes: Array<KnownRoute> = SYSTEM_PATHS.map((path) => ({ method: "GET", pattern: compile(path) }))
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => routes.push({ method: endpoint.method, pattern: compile(endpoint.path) })
  })
  return routes
}

export class RouteFallback extends Context.Service<RouteFallback>()("@support-engine/http/RouteFallback", {
  make: Effect.sync(() => {
    const routes = knownRoutes()
    /** The 404 or 405 response for a request the router did not match. */
    const respond = (request: HttpServerRequest.HttpServerRequest): HttpServerResponse.HttpServerResponse => {
      const pathname = new URL(request.url, "http://localhost").pathname
      const allowed = [...new Set(routes.filter((route) => route.pattern.test(pathname)).map((route) => route.method))]
      return allowed.length === 0
        ? renderHttpFailure(HttpFailure.routeNotFound)
        : HttpServerResponse.setHeader(renderHttpFailure(HttpFailure.methodNotAllowed), "allow", allowed.join(", "))
    }
    return { respond } as const
  })
}) {
  static readonly layer: Layer.Layer<RouteFallback> = Layer.effect(this, this.make)
}
