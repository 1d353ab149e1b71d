/**
 * The routes beside `/v1` (D42): `GET /health` (no auth), `GET /openapi.json` (OpenAPI 3.1 of the whole API)
 * and `GET /docs`, a browsable reference whose script is inlined in the page (Scalar, bundled with
 * `@effect/platform`), so it works on a machine without internet access.
 */
import { HttpApiBuilder, HttpApiScalar, HttpServerResponse, OpenApi } from "@effect/platform"
import type { HttpApi } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "./Api.js"

/** The OpenAPI 3.1 document of the API. */
export const openApiDocument = (): OpenApi.OpenAPISpec => OpenApi.fromApi(Api)

const HealthAndSpecLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    yield* router.get("/health", Effect.succeed(HttpServerResponse.unsafeJson({ status: "ok" })))
    const spec = HttpServerResponse.unsafeJson(openApiDocument())
    yield* router.get("/openapi.json", Effect.succeed(spec))
  })
)

const ReferenceLive = HttpApiScalar.layer({
  path: "/docs",
  // Default fonts load from Scalar's CDN; the system fonts keep the page self-contained.
  scalar: { withDefaultFonts: false, defaultOpenAllTags: true }
})

/** `/health`, `/openapi.json` and `/docs`. */
export const DocsLive: Layer.Layer<never, never, HttpApi.Api> = Layer.mergeAll(HealthAndSpecLive, ReferenceLive)
