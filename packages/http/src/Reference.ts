/**
 * The `/docs` page: Scalar's API reference with its script inlined, so it works without internet access.
 * Loaded on the first request for `/docs` (Docs.ts): the inlined script is megabytes of JavaScript, and parsing it
 * on every start was a measurable part of start-up (docs/performance.md). The bundled executable keeps this module
 * in a chunk of its own; `HttpApiScalar` is imported from its own module, not the package index, for that reason.
 */
import { Effect, Layer, type Scope } from "effect"
import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import * as HttpApiScalar from "effect/http-api/HttpApiScalar"
import { Api } from "./Api.js"

/**
 * Scalar's options (the version `effect` inlines) that keep the page from calling a third party;
 * `HttpApiScalar.ScalarConfig` declares only some of them, and the page passes the whole object to Scalar.
 * Each one switches off a feature that would reach a Scalar host (see docs/decisions.md, "/docs").
 */
export const OFFLINE_SCALAR_OPTIONS = {
  // Default fonts load from fonts.scalar.com; the system fonts keep the page self-contained.
  withDefaultFonts: false,
  // The toolbar's Share menu uploads the document to api.scalar.com (through proxy.scalar.com) and links to
  // registry.scalar.com and dashboard.scalar.com; Scalar shows it by default when the page is served on localhost.
  showToolbar: "never",
  // Usage events of the request client go to api.scalar.com/analytics.
  telemetry: false,
  // "Open API Client" opens client.scalar.com with the document's address.
  hideClientButton: true,
  // The document is at /openapi.json already; the download links only duplicate it.
  documentDownloadType: "none",
  // The sidebar names operations by their summaries (every operation has one), not by their paths.
  operationTitleSource: "summary",
  defaultOpenAllTags: true
} as const

const scalar: HttpApiScalar.ScalarConfig = OFFLINE_SCALAR_OPTIONS

/**
 * The answer to `GET /docs`: Scalar's page for the API, from a router of its own that holds only that route (the
 * page is made once, by `HttpApiScalar`, on the first request).
 */
export const referencePage: Effect.Effect<
  Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope>
> = Effect.gen(
  function*() {
    const router = yield* HttpRouter.make
    yield* Layer.build(HttpApiScalar.layer(Api, { path: "/docs", scalar })).pipe(
      Effect.provideService(HttpRouter.HttpRouter, router),
      Effect.scoped
    )
    // The page is the router's one route: any failure here is a bug.
    return Effect.orDie(router.asHttpEffect())
  }
)
