/**
 * Where webhooks may point, a guard against server-side request forgery: https only, and only
 * global unicast addresses, whether written in the URL or resolved from its host
 * name (every address the name has). With `allowPrivate` (development), http and those addresses are allowed.
 * The rules are pure (no Node I/O): host names are resolved through the `HostResolver` port, and the webhooks
 * package's transport makes the same address check again when it connects.
 */
import { Effect } from "effect"
import ipaddr from "ipaddr.js"
import { ValidationError } from "../shared/Errors.js"
import { HostResolver } from "./HostResolver.js"

/** 4 or 6 for an IP address literal, 0 for anything else (as `net.isIP`; IPv4 only in dotted-decimal form). */
export const ipFamily = (text: string): 0 | 4 | 6 =>
  ipaddr.IPv4.isValidFourPartDecimal(text) ? 4 : text.includes(":") && ipaddr.IPv6.isValid(text) ? 6 : 0

/** IPv6 global unicast is 2000::/3; every other IPv6 prefix is special, unassigned or reserved. */
const globalUnicast = ipaddr.IPv6.parse("2000::")

const DOTTED_TAIL = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

/**
 * An IPv6 address with its trailing dotted IPv4 part written as two hex groups, zone dropped. ipaddr.js 2.5 reads
 * any dotted tail as IPv4-mapped (`::8.8.8.8` parses as `::ffff:8.8.8.8`), which would let the IPv4-compatible
 * form pass as the global IPv4 address it embeds.
 */
const withHexTail = (address: string): string =>
  address.replace(/%.*$/, "").replace(
    DOTTED_TAIL,
    (_, a: string, b: string, c: string, d: string) =>
      `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`
  )

/**
 * Whether an IP address is one webhooks may not reach unless private targets are allowed: everything that
 * is not global unicast. ipaddr.js names the IANA special-purpose ranges (`range()` is "unicast" for none of
 * them). An IPv4-mapped address (`::ffff:a.b.c.d`) is the IPv4 address itself and is judged as one; the other
 * forms that embed an IPv4 address (IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4
 * `2002::/16`, Teredo `2001::/32`) reach it through a translator whose reach the engine cannot know, so they are
 * refused whatever they embed, as the registries list them.
 */
export const isRefusedAddress = (address: string): boolean => {
  const family = ipFamily(address)
  if (family === 0) return true
  if (family === 4) return ipaddr.IPv4.parse(address).range() !== "unicast"
  const six = ipaddr.IPv6.parse(withHexTail(address))
  if (six.isIPv4MappedAddress()) return six.toIPv4Address().range() !== "unicast"
  if (!six.match(globalUnicast, 3)) return true
  return six.range() !== "unicast"
}

/** The host of a URL as sockets see it: IPv6 literals lose their brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1")

export const REFUSED_ADDRESS_MESSAGE = "must point to a public address (loopback, private and other special-purpose " +
  "addresses are refused; SUPPORT_WEBHOOK_ALLOW_PRIVATE=true allows them for development)"

/** Refuses a webhook URL the policy does not allow, with a 422 on `url`. */
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
    if (ipFamily(host) !== 0) {
      if (isRefusedAddress(host)) return yield* refuse(REFUSED_ADDRESS_MESSAGE)
      return
    }
    const addresses = yield* Effect.flatMap(HostResolver, (resolver) => resolver.resolve(host)).pipe(
      Effect.catchTag("ResolveError", () => refuse("host name does not resolve"))
    )
    if (addresses.length === 0) return yield* refuse("host name does not resolve")
    if (addresses.some((a) => isRefusedAddress(a.address))) return yield* refuse(REFUSED_ADDRESS_MESSAGE)
  })
