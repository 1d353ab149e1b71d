import { makeWakeUp, type WorkspaceId } from "@support-engine/core"
import { Context, Effect, Layer } from "effect"

/**
 * Wakes the dispatchers of this process when deliveries are created or rescheduled: core's one wake-up primitive,
 * one per storage layer. Writers notify after their transaction commits; other processes' work is found by the
 * dispatcher's fallback poll. A fan-out says which workspace its new deliveries belong to (`notifyWorkspace`), so a
 * dispatcher can let pass the commits of a workspace already at its in-flight limit without looking for work
 * (each commit of a busy workspace would otherwise cost a claim); any other change (`notify`) may have
 * made anything due.
 */
export class DeliverySignal extends Context.Service<DeliverySignal>()("@support-engine/storage/DeliverySignal", {
  make: Effect.map(makeWakeUp, (wakeUp) => {
    // null: some change since the last take was not limited to the workspaces listed.
    let touched: Set<WorkspaceId> | null = new Set()
    return {
      subscribe: wakeUp.subscribe,
      notify: Effect.suspend(() => {
        touched = null
        return wakeUp.notify
      }),
      notifyWorkspace: (workspaceId: WorkspaceId) =>
        Effect.suspend(() => {
          touched?.add(workspaceId)
          return wakeUp.notify
        }),
      /** The workspaces with new work since the last take, or "any". */
      takeTouched: Effect.sync((): ReadonlySet<WorkspaceId> | "any" => {
        const taken = touched
        touched = new Set()
        return taken ?? "any"
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
