/**
 * Host name resolution, a port: the address policy asks it for every address a webhook's host name has.
 * Core stays free of Node I/O; `@support-engine/webhooks` implements it with the operating system's resolver
 * (`DnsHostResolver`), and tests script DNS answers (rebinding included).
 */
import { Context, Data, type Effect } from "effect"

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

export class ResolveError
  extends Data.TaggedError("ResolveError")<{ readonly hostname: string; readonly cause: unknown }>
{}

export class HostResolver extends Context.Service<HostResolver, {
  /** Every address the name resolves to. */
  readonly resolve: (hostname: string) => Effect.Effect<ReadonlyArray<ResolvedAddress>, ResolveError>
}>()("@support-engine/core/HostResolver") {}
