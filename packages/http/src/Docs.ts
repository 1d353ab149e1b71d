/**
 * The routes beside `/v1`: `GET /health` (no auth, liveness: it touches no database), `GET /ready` (no auth,
 * readiness: 200 when the database answers and is migrated, else 503), `GET /openapi.json` (OpenAPI 3.1 of the whole API)
 * and `GET /docs`, a browsable reference whose script is inlined in the page (Scalar, bundled with `effect`), so
 * it works on a machine without internet access.
 *
 * Both documents are built on their first request, not at start: every start generated the OpenAPI document
 * twice (once more for the reference page) and parsed the page's large script (docs/performance.md, start-up).
 */
import { Readiness } from "@support-engine/core"
import { Effect, type Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { Api } from "./Api.js"

/** The OpenAPI 3.1 document of the API. */
export const openApiDocument = (): OpenApi.OpenAPISpec => OpenApi.fromApi(Api)

const READY = HttpServerResponse.jsonUnsafe({ status: "ready" })
const UNAVAILABLE = HttpServerResponse.jsonUnsafe({ status: "unavailable" }, { status: 503 })

/** `/health`, `/ready`, `/openapi.json` and `/docs`. */
export const DocsLive: Layer.Layer<never, never, HttpRouter.HttpRouter | Readiness> = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const readiness = yield* Readiness
    yield* router.add("GET", "/health", HttpServerResponse.jsonUnsafe({ status: "ok" }))
    yield* router.add("GET", "/ready", Effect.map(readiness.check, (ready) => ready ? READY : UNAVAILABLE))
    const spec = yield* Effect.cached(Effect.sync(() => HttpServerResponse.jsonUnsafe(openApiDocument())))
    yield* router.add("GET", "/openapi.json", spec)
    const reference = yield* Effect.cached(
      Effect.flatMap(Effect.promise(() => import("./Reference.js")), (module) => module.referencePage)
    )
    yield* router.add("GET", "/docs", Effect.flatten(reference))
  })
)
