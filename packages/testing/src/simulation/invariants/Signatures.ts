/**
 * Every request verifies with a secret its webhook had when the request was sent: the current one,
 * or the one before it during its grace period. A secret out of its time does not count.
 */
import { verify } from "@support-engine/webhooks"
import { Effect } from "effect"
import type { ReceivedRequest } from "../../RecordingReceiver.js"
import { ensure } from "../Failure.js"
import type { HookModel } from "../Model.js"
import type { PlantedBug } from "../Options.js"

export const checkSignature = (request: ReceivedRequest, hook: HookModel, plantBug: PlantedBug | undefined) =>
  Effect.gen(function*() {
    const secrets = hook.secrets
      .filter((s) => s.from <= request.at && (s.until === undefined || request.at <= s.until))
      .map((s) => s.secret)
    const headers = plantBug === "drop-signature" && request.at % 3 === 0
      ? { ...request.headers, "webhook-signature": "v1,AAAA" }
      : request.headers
    const ok = yield* verify(request.body, headers, secrets, { now: request.at }).pipe(
      Effect.as(true),
      Effect.catch(() => Effect.succeed(false))
    )
    yield* ensure(
      ok,
      "every delivery's signatures verify with the secret current or in grace when it was sent",
      () => `${request.url} at ${request.at}`
    )
  })
