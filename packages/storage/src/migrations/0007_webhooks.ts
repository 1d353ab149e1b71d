import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { types } from "../shared/Columns.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = types(sql)
  // events: the subscribed types as given (JSON, for reading back); matching uses webhook_event_types.
  yield* sql.unsafe(`CREATE TABLE webhooks (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    description TEXT,
    events ${t.json} NOT NULL,
    is_active ${t.bool} NOT NULL,
    consecutive_failures ${t.int} NOT NULL,
    deactivated_at ${t.ts},
    deactivation_reason TEXT,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_expires_at ${t.ts},
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX webhooks_workspace_order ON webhooks (workspace_id, created_at DESC, id DESC)`)
  // Fan-out finds the webhooks of a workspace subscribed to a type, or to '*', through the primary key.
  yield* sql.unsafe(`CREATE TABLE webhook_event_types (
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    event_type TEXT NOT NULL,
    webhook_id ${t.id} NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    PRIMARY KEY (workspace_id, event_type, webhook_id)
  )`)
  yield* sql.unsafe(`CREATE INDEX webhook_event_types_webhook ON webhook_event_types (webhook_id)`)
  // round_attempts: attempts of the current round (its retry budget), reset by a redelivery; attempts: all of them.
  // next_attempt_at: when the delivery is due; a claim moves it to the end of the lease, so an expired lease is
  // simply due again. NULL when nothing is scheduled.
  yield* sql.unsafe(`CREATE TABLE webhook_deliveries (
    id ${t.id} PRIMARY KEY,
    workspace_id ${t.id} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    webhook_id ${t.id} NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id ${t.id} NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    event TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts ${t.int} NOT NULL,
    round_attempts ${t.int} NOT NULL,
    next_attempt_at ${t.ts},
    claimed_by TEXT,
    leased_until ${t.ts},
    last_attempt_at ${t.ts},
    response_status ${t.int},
    last_error TEXT,
    delivered_at ${t.ts},
    created_at ${t.ts} NOT NULL,
    updated_at ${t.ts} NOT NULL
  )`)
  yield* sql.unsafe(
    `CREATE INDEX webhook_deliveries_webhook_order ON webhook_deliveries
      (workspace_id, webhook_id, created_at DESC, id DESC)`
  )
  yield* sql.unsafe(
    `CREATE INDEX webhook_deliveries_webhook_status_order ON webhook_deliveries
      (workspace_id, webhook_id, status, created_at DESC, id DESC)`
  )
  // The dispatcher's queue: pending deliveries by due time, whatever the size of the delivered history.
  yield* sql.unsafe(
    `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`
  )
  yield* sql.unsafe(`CREATE INDEX webhook_deliveries_claimant ON webhook_deliveries (claimed_by)
    WHERE claimed_by IS NOT NULL`)
  yield* sql.unsafe(`CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id)`)
  yield* sql.unsafe(`CREATE TABLE webhook_delivery_attempts (
    delivery_id ${t.id} NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt ${t.int} NOT NULL,
    attempted_at ${t.ts} NOT NULL,
    duration_ms ${t.int} NOT NULL,
    response_status ${t.int},
    error TEXT,
    response_excerpt TEXT,
    PRIMARY KEY (delivery_id, attempt)
  )`)
})
