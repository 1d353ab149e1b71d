/** Core's webhook subscriptions service as a host runs it: settings from the environment, the system's resolver. */
import {
  type IdGenerator,
  type RowLocks,
  type Transactor,
  type WebhookOps,
  type WebhookRepo,
  Webhooks
} from "@support-engine/core"
import { type Config, Layer } from "effect"
import { DnsHostResolver } from "./DnsHostResolver.js"

/** `Webhooks` with `SUPPORT_WEBHOOK_*` from the environment and `DnsHostResolver`. */
export const WebhooksLive: Layer.Layer<
  Webhooks,
  Config.ConfigError,
  WebhookRepo | WebhookOps | RowLocks | Transactor | IdGenerator
> = Webhooks.layer.pipe(Layer.provide(DnsHostResolver))
