/**
 * Where webhooks may point (D36, D47), a guard against server-side request forgery: https only, and no loopback,
 * private, link-local, unique-local or unspecified address, whether written in the URL or resolved from its host
 * name (every address the name has). With `allowPrivate` (development), http and those addresses are allowed.
 * The transport makes the same address check again when it connects.
 */
import { ValidationError } from "@support-engine/core"
import { Context, Data, Effect, Layer } from "effect"
import { lookup } from "node:dns/promises"
import { BlockList, isIP } from "node:net"

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

export class ResolveError
  extends Data.TaggedError("ResolveError")<{ readonly hostname: string; readonly cause: unknown }>
{}

/** Host name resolution, a service so that tests can script DNS answers (rebinding included). */
export class HostResolver extends Context.Tag("@support-engine/webhooks/HostResolver")<HostResolver, {
  /** Every address the name resolves to. */
  readonly resolve: (hostname: string) => Effect.Effect<ReadonlyArray<ResolvedAddress>, ResolveError>
}>() {
  /** The operating system's resolver (`getaddrinfo`, so `/etc/hosts` counts), as sockets use it. */
  static readonly System: Layer.Layer<HostResolver> = Layer.succeed(HostResolver, {
    resolve: (hostname) =>
      Effect.tryPromise({
        try: () => lookup(hostname, { all: true, verbatim: true }),
        catch: (cause) => new ResolveError({ hostname, cause })
      }).pipe(Effect.map((answers) => answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))))
  })
}

const refused = new BlockList()
refused.addSubnet("0.0.0.0", 8, "ipv4") // "this network", 0.0.0.0 included: connecting to it reaches the host
refused.addSubnet("127.0.0.0", 8, "ipv4") // loopback
refused.addSubnet("10.0.0.0", 8, "ipv4") // private
refused.addSubnet("172.16.0.0", 12, "ipv4") // private
refused.addSubnet("192.168.0.0", 16, "ipv4") // private
refused.addSubnet("169.254.0.0", 16, "ipv4") // link-local (cloud metadata endpoints live here)
refused.addAddress("::", "ipv6") // unspecified
refused.addAddress("::1", "ipv6") // loopback
refused.addSubnet("fe80::", 10, "ipv6") // link-local
refused.addSubnet("fc00::", 7, "ipv6") // unique-local
// IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are matched against the IPv4 rules by BlockList itself.

/** Whether an IP address is one webhooks may not reach unless private targets are allowed. */
export const isRefusedAddress = (address: string): boolean => {
  const family = isIP(address)
  return family === 0 ? true : refused.check(address, family === 6 ? "ipv6" : "ipv4")
}

/** The host of a URL as sockets see it: IPv6 literals lose their brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1")

export const REFUSED_ADDRESS_MESSAGE = "must not point to a loopback, private, link-local or unspecified address"

/** Refuses a webhook URL the policy does not allow, with a 422 on `url` (D36). */
export const checkWebhookUrl = (
  raw: string,
  allowPrivate: boolean
): Effect.Effect<void, ValidationError, HostResolver> =>
  Effect.gen(function*() {
    const refuse = (message: string) => Effect.fail(ValidationError.field("url", message))
    const url = yield* Effect.try({
      try: () => new URL(raw),
      catch: () => ValidationError.field("url", "must be a URL")
    })
    if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) {
      return yield* refuse("must be an https URL")
    }
    if (allowPrivate) return
    const host = hostOf(url)
    if (isIP(host) !== 0) {
      if (isRefusedAddress(host)) return yield* refuse(REFUSED_ADDRESS_MESSAGE)
      return
    }
    const addresses = yield* Effect.flatMap(HostResolver, (resolver) => resolver.resolve(host)).pipe(
      Effect.catchTag("ResolveError", () => refuse("host name does not resolve"))
    )
    if (addresses.length === 0) return yield* refuse("host name does not resolve")
    if (addresses.some((a) => isRefusedAddress(a.address))) return yield* refuse(REFUSED_ADDRESS_MESSAGE)
  })
