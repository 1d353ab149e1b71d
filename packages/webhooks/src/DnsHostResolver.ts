/**
 * The `HostResolver` port of core implemented with the operating system's resolver (`getaddrinfo`, so `/etc/hosts`
 * counts), as sockets use it, so the address a webhook URL is checked against is the one the socket connects to.
 */
import { HostResolver, ResolveError } from "@support-engine/core"
import { Effect, Layer } from "effect"
import { lookup } from "node:dns/promises"

export const DnsHostResolver: Layer.Layer<HostResolver> = Layer.succeed(HostResolver, {
  resolve: (hostname) =>
    Effect.tryPromise({
      try: () => lookup(hostname, { all: true, verbatim: true }),
      catch: (cause) => new ResolveError({ hostname, cause })
    }).pipe(Effect.map((answers) => answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))))
})
