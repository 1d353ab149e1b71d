/**
 * The `HostResolver` port of core implemented with the operating system's resolver (`getaddrinfo`, so `/etc/hosts`
 * counts), as sockets use it (D47).
 */
import {
  HostResolver,
  type IdGenerator,
  ResolveError,
  type RowLocks,
  type Transactor,
  type WebhookOps,
  type WebhookRepo,
  Webhooks
} from "@support-engine/core"
import { type Config, Effect, Layer } from "effect"
import { lookup } from "node:dns/promises"

export const DnsHostResolver: Layer.Layer<HostResolver> = Layer.succeed(HostResolver, {
  resolve: (hostname) =>
    Effect.tryPromise({
      try: () => lookup(hostname, { all: true, verbatim: true }),
      catch: (cause) => new ResolveError({ hostname, cause })
    }).pipe(Effect.map((answers) => answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))))
})

/** Core's webhook subscriptions service with `SUPPORT_WEBHOOK_*` from the environment (D41) and this resolver. */
export const WebhooksLive: Layer.Layer<
  Webhooks,
  Config.ConfigError,
  WebhookRepo | WebhookOps | RowLocks | Transactor | IdGenerator
> = Webhooks.layer.pipe(Layer.provide(DnsHostResolver))
