/**
 * The API as a request handler inside a host's own server: a web `Request => Response` handler (Bun, Deno, a
 * serverless function, a Node framework with a fetch adapter) or a node:http `(req, res)` listener.
 */
// The module itself, not the package index: through the index the bundle keeps all of NodeHttpServer, whose test
// layer pulls in undici.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Exit, Layer, Scope } from "effect"
import { HttpRouter, HttpServer, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { IncomingMessage, ServerResponse } from "node:http"
import { type ApiServices, HttpApiLive, type PlatformServices } from "./HttpApiLive.js"

/** A request handler and the function that releases what it holds (database pool, background fibers). */
export interface Handler<H> {
  readonly handler: H
  readonly dispose: () => Promise<void>
}

/**
 * The API as a web `Request => Response` handler over the given engine (`supportEngineLayer`), for hosts with their
 * own server (Bun, Deno, a serverless function, a Node framework with a fetch adapter).
 */
export const makeWebHandler = <E>(
  engine: Layer.Layer<ApiServices, E>
): Handler<(request: Request) => Promise<Response>> =>
  HttpRouter.toWebHandler(
    HttpApiLive.pipe(
      Layer.provide(engine),
      Layer.provide(HttpServer.layerServices)
    ),
    { disableLogger: true }
  )

/**
 * The API as a node:http request listener, inside an Effect program that provides the API's services; the
 * listener's requests run in the program's scope.
 */
export const nodeHandler: Effect.Effect<
  (request: IncomingMessage, response: ServerResponse) => void,
  never,
  Scope.Scope | PlatformServices | ApiServices
> = Effect.gen(function*() {
  const httpEffect: Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    unknown,
    HttpServerRequest.HttpServerRequest | Scope.Scope
  > = yield* HttpRouter.toHttpEffect(HttpApiLive)
  return yield* NodeHttpServer.makeHandler(httpEffect, { scope: yield* Scope.Scope })
})

/**
 * The API as a node:http `(req, res)` listener over the given engine (`supportEngineLayer`), to mount in an existing server:
 * route the requests it should answer (for example every path under `/v1`, plus `/docs`, `/openapi.json`)
 * to `handler`, and call `dispose` when the server closes.
 */
export const makeNodeHandler = <E>(
  engine: Layer.Layer<ApiServices, E>
): Handler<(request: IncomingMessage, response: ServerResponse) => void> => {
  const scope = Scope.makeUnsafe()
  const services = HttpServer.layerServices.pipe(Layer.provideMerge(engine))
  const ready = Effect.runPromise(
    Effect.flatMap(
      Layer.buildWithScope(services, scope),
      (context) => nodeHandler.pipe(Effect.provideContext(context), Scope.provide(scope))
    )
  )
  // Surfaced on each request instead; without this the first failure would be an unhandled rejection.
  ready.catch(() => undefined)
  return {
    handler: (request, response) => {
      ready.then((handle) => handle(request, response), () => {
        response.writeHead(500, { "content-type": "application/json" })
        response.end(JSON.stringify({ error: "Internal server error.", code: null, errors: null }))
      })
    },
    dispose: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
