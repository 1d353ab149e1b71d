/**
 * How long the event log and the webhook delivery history are kept. `fromEnv` reads
 * `SUPPORT_EVENT_RETENTION_DAYS` (default 90) and `SUPPORT_DELIVERY_RETENTION_DAYS` (default 30): whole days from 1
 * to 3,650, or 0 to keep forever. `layer` is for tests and hosts.
 */
import { Config, Context, Effect, Layer, Schema } from "effect"

export interface RetentionSettings {
  /** Days an event is kept after it was recorded; 0 keeps events forever. */
  readonly eventDays: number
  /** Days a finished delivery (delivered, failed, cancelled) and its attempts are kept; 0 keeps them forever. */
  readonly deliveryDays: number
}

export const retentionDefaults: RetentionSettings = { eventDays: 90, deliveryDays: 30 }

/** The longest retention that can be set: ten years. */
export const MAX_RETENTION_DAYS = 3_650

const RetentionDays = Schema.Int.check(
  Schema.makeFilter((days) => days >= 0 && days <= MAX_RETENTION_DAYS, {
    message: `must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or 0 to keep forever`
  })
)

export class RetentionConfig extends Context.Service<RetentionConfig, RetentionSettings>()(
  "@support-engine/core/RetentionConfig"
) {
  /** Settings given in code; anything left out takes its default. */
  static layer(settings: Partial<RetentionSettings> = {}): Layer.Layer<RetentionConfig> {
    return Layer.succeed(RetentionConfig, { ...retentionDefaults, ...settings })
  }

  /** `SUPPORT_EVENT_RETENTION_DAYS` and `SUPPORT_DELIVERY_RETENTION_DAYS`; an invalid value names its variable. */
  static readonly fromEnv: Layer.Layer<RetentionConfig, Config.ConfigError> = Layer.unwrap(
    Effect.gen(function*() {
      const days = (name: string, fallback: number) =>
        Config.schema(RetentionDays, name).pipe(Config.withDefault(fallback))
      return RetentionConfig.layer({
        eventDays: yield* days("SUPPORT_EVENT_RETENTION_DAYS", retentionDefaults.eventDays),
        deliveryDays: yield* days("SUPPORT_DELIVERY_RETENTION_DAYS", retentionDefaults.deliveryDays)
      })
    })
  )
}
