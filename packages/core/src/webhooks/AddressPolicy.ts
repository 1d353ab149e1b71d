/**
 * Where webhooks may point (D36, D47), a guard against server-side request forgery: https only, and no loopback,
 * private, link-local, unique-local or unspecified address, whether written in the URL or resolved from its host
 * name (every address the name has). With `allowPrivate` (development), http and those addresses are allowed.
 * The rules are pure (no Node I/O): host names are resolved through the `HostResolver` port, and the webhooks
 * package's transport makes the same address check again when it connects.
 */
import { Effect } from "effect"
import { ValidationError } from "../shared/Errors.js"
import { HostResolver } from "./HostResolver.js"

/** The four bytes of a dotted-quad IPv4 address (decimal, 0-255, no leading zeros), or undefined. */
const parseIPv4 = (text: string): ReadonlyArray<number> | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  const bytes = parts.map((part) => /^(0|[1-9]\d{0,2})$/.test(part) ? Number(part) : Number.NaN)
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : undefined
}

/** The sixteen bytes of an IPv6 address (`::` shortening, a trailing IPv4 part, a `%zone`), or undefined. */
const parseIPv6 = (text: string): ReadonlyArray<number> | undefined => {
  const address = text.replace(/%[^%]+$/, "")
  const halves = address.split("::")
  if (halves.length > 2) return undefined
  const groups = (half: string): Array<number> | undefined => {
    if (half === "") return []
    const out: Array<number> = []
    const pieces = half.split(":")
    for (const [index, piece] of pieces.entries()) {
      if (index === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIPv4(piece)
        if (v4 === undefined) return undefined
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!)
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
        out.push(parseInt(piece, 16))
      } else {
        return undefined
      }
    }
    return out
  }
  const head = groups(halves[0]!)
  const tail = halves.length === 2 ? groups(halves[1]!) : []
  if (head === undefined || tail === undefined) return undefined
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const all = [...head, ...Array<number>(missing).fill(0), ...tail]
  return all.flatMap((group) => [group >> 8, group & 0xff])
}

/** 4 or 6 for an IP address literal, 0 for anything else (as `net.isIP`). */
export const ipFamily = (text: string): 0 | 4 | 6 =>
  parseIPv4(text) !== undefined ? 4 : text.includes(":") && parseIPv6(text) !== undefined ? 6 : 0

interface Range {
  readonly prefix: ReadonlyArray<number>
  readonly bits: number
}

const within = (bytes: ReadonlyArray<number>, { bits, prefix }: Range): boolean => {
  for (let bit = 0; bit < bits; bit++) {
    const mask = 0x80 >> (bit % 8)
    if ((bytes[bit >> 3]! & mask) !== (prefix[bit >> 3]! & mask)) return false
  }
  return true
}

const v4 = (address: string, bits: number): Range => ({ prefix: parseIPv4(address)!, bits })
const v6 = (address: string, bits: number): Range => ({ prefix: parseIPv6(address)!, bits })

const refusedV4: ReadonlyArray<Range> = [
  v4("0.0.0.0", 8), // "this network", 0.0.0.0 included: connecting to it reaches the host
  v4("127.0.0.0", 8), // loopback
  v4("10.0.0.0", 8), // private
  v4("172.16.0.0", 12), // private
  v4("192.168.0.0", 16), // private
  v4("169.254.0.0", 16) // link-local (cloud metadata endpoints live here)
]

const refusedV6: ReadonlyArray<Range> = [
  v6("::", 128), // unspecified
  v6("::1", 128), // loopback
  v6("fe80::", 10), // link-local
  v6("fc00::", 7) // unique-local
]

/** IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) are judged by the IPv4 rules. */
const mapped = v6("::ffff:0:0", 96)

/** Whether an IP address is one webhooks may not reach unless private targets are allowed. */
export const isRefusedAddress = (address: string): boolean => {
  const four = parseIPv4(address)
  if (four !== undefined) return refusedV4.some((range) => within(four, range))
  const six = address.includes(":") ? parseIPv6(address) : undefined
  if (six === undefined) return true
  if (within(six, mapped)) return refusedV4.some((range) => within(six.slice(12), range))
  return refusedV6.some((range) => within(six, range))
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
