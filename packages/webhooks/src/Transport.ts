/**
 * Sending one attempt. `WebhookTransport.HttpClient` posts with effect/http's `HttpClient` on the Node platform's
 * undici client, over a keep-alive HTTP/1.1 agent of its own: redirects are not followed, the attempt is cut at the
 * configured timeout by `Effect.timeout` (on Effect's clock, so a `TestClock` drives it), the answer's body is read
 * into a bounded excerpt, and the address the socket connects to is checked again (a host name that changed its
 * answer since the webhook was saved cannot reach a refused address).
 *
 * Tests of the retry rules swap in a scripted transport.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { hostOf, HostResolver, isRefusedAddress, WebhookConfig } from "@support-engine/core"
import { Context, Data, Duration, Effect, Exit, Layer, Scope, Stream } from "effect"
import { constTrue } from "effect/Function"
import { HttpBody, HttpClient, HttpClientError, HttpClientRequest, type HttpClientResponse } from "effect/http"
import type { LookupAddress, LookupOptions } from "node:dns"
import { isIP } from "node:net"

export interface TransportRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export interface TransportResponse {
  readonly status: number
  readonly retryAfter: string | undefined
  /** The start of the answer's body (at most `EXCERPT_CHARACTERS`), or null when it was empty. */
  readonly excerpt: string | null
}

/** An attempt without an answer: timed out, could not connect, or the address was refused. */
export class TransportError extends Data.TaggedError("TransportError")<{
  readonly reason: "timeout" | "connection" | "refused_address"
  readonly message: string
}> {}

export class WebhookTransport extends Context.Service<WebhookTransport, {
  readonly send: (request: TransportRequest) => Effect.Effect<TransportResponse, TransportError>
}>()("@support-engine/webhooks/WebhookTransport") {
  /** The stock transport, on effect/http's `HttpClient`. Closing its scope closes its connections. */
  static readonly HttpClient: Layer.Layer<WebhookTransport, never, WebhookConfig | HostResolver> = Layer.effect(
    WebhookTransport,
    Effect.gen(function*() {
      const config = yield* WebhookConfig
      const resolver = yield* HostResolver
      const services = yield* Effect.context<never>()
      const scope = yield* Effect.scope
      // undici is loaded, and the agent made, with the first attempt: loading it is a noticeable share of the
      // executable's start-up, and a server may have nothing to deliver for a long while.
      const client = yield* Effect.cached(
        NodeHttpClient.makeDispatcherOptions({
          // undici 8 offers HTTP/2 over TLS by default: receivers keep getting HTTP/1.1 (one attempt per connection
          // at a time, as the per-webhook limit of attempts in flight assumes).
          allowH2: false,
          // The attempt's deadline is `Effect.timeout` below; undici's own connect timer only must not come first.
          connect: {
            timeout: Duration.toMillis(config.timeout),
            lookup: guardedLookup(resolver, services, config.allowPrivate)
          }
        }).pipe(
          Effect.flatMap((dispatcher) =>
            Effect.provideService(NodeHttpClient.makeUndici, NodeHttpClient.Dispatcher, dispatcher)
          ),
          Effect.provideService(Scope.Scope, scope),
          Effect.uninterruptible
        )
      )
      const timeoutError = () =>
        new TransportError({ reason: "timeout", message: `No answer within ${Duration.format(config.timeout)}.` })

      const send = (request: TransportRequest) =>
        Effect.gen(function*() {
          const url = new URL(request.url)
          // A literal address is never looked up, so the socket's address check happens here.
          const host = hostOf(url)
          if (!config.allowPrivate && isIP(host) !== 0 && isRefusedAddress(host)) {
            return yield* new TransportError({ reason: "refused_address", message: refusedMessage(host) })
          }
          const http = yield* client
          return yield* post(http, url, request).pipe(
            Effect.mapError(toTransportError),
            // Connection, answer and body together; interrupting the request aborts it.
            Effect.timeoutOrElse({ duration: config.timeout, orElse: () => Effect.fail(timeoutError()) })
          )
        })

      return { send }
    })
  )
}

/**
 * One POST with the request's own headers (its `Content-Type` included). No span of its own and no trace context
 * sent: the attempt's `webhook.attempt` span covers it, and a receiver is a third party.
 */
const post = (client: HttpClient.HttpClient, url: URL, request: TransportRequest) =>
  client.execute(
    HttpClientRequest.post(url, {
      headers: request.headers,
      body: HttpBody.text(request.body, contentTypeOf(request.headers))
    })
  ).pipe(
    Effect.flatMap((response) =>
      Effect.map(readExcerpt(response), (excerpt): TransportResponse => ({
        status: response.status,
        retryAfter: response.headers["retry-after"],
        excerpt
      }))
    ),
    Effect.provideService(HttpClient.TracerDisabledWhen, constTrue)
  )

const contentTypeOf = (headers: Readonly<Record<string, string>>): string | undefined => {
  for (const name in headers) if (name.toLowerCase() === "content-type") return headers[name]
  return undefined
}

/** How much of an answer's body the attempt log keeps. */
export const EXCERPT_CHARACTERS = 1024
/** Bodies up to this size are drained so the connection can be reused; a longer one closes it. */
const DRAIN_BYTES = 64 * 1024

/**
 * The start of the answer's body, always read, even when empty, as undici asks: an unread body keeps its request,
 * and its connection's resources, until it is collected. A body of a stated length up to `DRAIN_BYTES` is read whole; any other is streamed, and
 * stopped past `DRAIN_BYTES`, which aborts the request and closes the connection.
 */
const readExcerpt = (
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<string | null, HttpClientError.HttpClientError> => {
  const length = response.headers["content-length"]
  if (length !== undefined && Number(length) <= DRAIN_BYTES) {
    return Effect.map(
      response.arrayBuffer,
      (bytes) =>
        excerptOf([new Uint8Array(bytes, 0, Math.min(bytes.byteLength, EXCERPT_CHARACTERS * 4))], bytes.byteLength)
    )
  }
  return Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    return Stream.runForEachWhile(response.stream, (chunk) => {
      if (size < EXCERPT_CHARACTERS * 4) chunks.push(chunk)
      size += chunk.length
      return Effect.succeed(size <= DRAIN_BYTES)
    }).pipe(Effect.map(() => excerptOf(chunks, size)))
  })
}

const excerptOf = (chunks: ReadonlyArray<Uint8Array>, size: number): string | null =>
  size === 0 ? null : new TextDecoder().decode(Buffer.concat(chunks)).slice(0, EXCERPT_CHARACTERS)

const REFUSED_CODE = "ERR_WEBHOOK_REFUSED_ADDRESS"
const refusedMessage = (address: string) => `Refused to connect to ${address}: not a public address.`

const causes = (error: unknown): Array<unknown> => {
  const chain: Array<unknown> = []
  // An `HttpClientError` holds what went wrong at `reason.cause`.
  let current: unknown = HttpClientError.isHttpClientError(error) && "cause" in error.reason
    ? error.reason.cause
    : error
  while (current !== undefined && current !== null && chain.length < 5) {
    chain.push(current)
    current = typeof current === "object" && "cause" in current ? current.cause : undefined
  }
  return chain
}

const toTransportError = (error: unknown): TransportError => {
  const chain = causes(error)
  const refused = chain.find((e) => typeof e === "object" && e !== null && "code" in e && e.code === REFUSED_CODE)
  if (refused instanceof Error) return new TransportError({ reason: "refused_address", message: refused.message })
  const described = chain.map((e) => {
    if (!(e instanceof Error)) return String(e)
    const code = "code" in e && typeof e.code === "string" ? `${e.code}: ` : ""
    return `${code}${e.message}`
  })
  return new TransportError({ reason: "connection", message: described.join(" <- ").slice(0, 500) })
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | Array<LookupAddress>,
  family?: number
) => void

/**
 * A `lookup` for sockets that resolves through `HostResolver` and, unless private targets are allowed, refuses a name
 * with any refused address: the check applies to the addresses the socket is about to use, not to an earlier
 * answer.
 */
const guardedLookup =
  (resolver: HostResolver["Service"], services: Context.Context<never>, allowPrivate: boolean) =>
  (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    Effect.runCallbackWith(services)(resolver.resolve(hostname), {
      onExit: (exit) => {
        if (Exit.isFailure(exit)) {
          const error: NodeJS.ErrnoException = new Error(`Could not resolve ${hostname}.`)
          error.code = "ENOTFOUND"
          return callback(error, "")
        }
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined
        const addresses = exit.value.filter((a) => wanted === undefined || a.family === wanted)
        const refused = allowPrivate ? undefined : addresses.find((a) => isRefusedAddress(a.address))
        if (refused !== undefined || addresses.length === 0) {
          const error: NodeJS.ErrnoException = new Error(
            refused === undefined ? `Could not resolve ${hostname}.` : refusedMessage(refused.address)
          )
          error.code = refused === undefined ? "ENOTFOUND" : REFUSED_CODE
          return callback(error, "")
        }
        if (options.all === true) {
          return callback(null, addresses.map((a) => ({ address: a.address, family: a.family })))
        }
        callback(null, addresses[0]!.address, addresses[0]!.family)
      }
    })
  }
