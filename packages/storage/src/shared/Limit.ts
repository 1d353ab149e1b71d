/**
 * `LIMIT` and `OFFSET` with bound counts that keep a SQLite statement prepared.
 *
 * SQLite's planner reads a bare bound parameter in `LIMIT`/`OFFSET` for its value, and in doing so marks the statement
 * to be recompiled whenever that parameter is bound again (its "query planner stability guarantee" is off by default).
 * better-sqlite3 binds every parameter on every run, so each list page, claim and fan-out batch was compiled anew,
 * which for the larger statements cost more than running them (docs/performance.md, "Other choices made for speed").
 * Written as `CAST(? AS INTEGER)` the count is an expression the planner does not evaluate: the plan is the one it
 * makes for an unknown count, as for the statement's first run, and the statement is compiled once. PostgreSQL plans a
 * parameter the same way in either form.
 */
import type { SqlClient, Statement } from "effect/sql"

/** `LIMIT <limit>`, or `LIMIT <limit> OFFSET <offset>` when an offset is given. */
export const limit = (sql: SqlClient.SqlClient, count: number, offset?: number): Statement.Fragment =>
  offset === undefined
    ? sql`LIMIT CAST(${count} AS INTEGER)`
    : sql`LIMIT CAST(${count} AS INTEGER) OFFSET CAST(${offset} AS INTEGER)`
