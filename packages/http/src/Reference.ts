/**
 * The `/docs` page: Scalar's API reference with its script inlined, so it works without internet access.
 * Loaded on the first request for `/docs` (Docs.ts): the inlined script is 3.4 MB of JavaScript, and parsing it
 * on every start was a measurable part of start-up (docs/performance.md). The bundled executable keeps this module
 * in a chunk of its own; `HttpApiScalar` is imported from its own module, not the package index, for that reason.
 */
import { HttpApi, HttpApiBuilder } from "@effect/platform"
import type { HttpRouter } from "@effect/platform"
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import { Effect, Layer } from "effect"

/** A router answering `GET /docs` for the API. */
export const referenceRouter = (
  api: HttpApi.Api["Type"]
): Effect.Effect<HttpRouter.HttpRouter<unknown, HttpRouter.HttpRouter.DefaultServices>> =>
  HttpApiBuilder.Router.router.pipe(
    Effect.provide(
      HttpApiScalar.layer({
        path: "/docs",
        // Default fonts load from Scalar's CDN; the system fonts keep the page self-contained.
        scalar: { withDefaultFonts: false, defaultOpenAllTags: true }
      }).pipe(Layer.provideMerge(HttpApiBuilder.Router.Live), Layer.provide(Layer.succeed(HttpApi.Api, api)))
    )
  )
