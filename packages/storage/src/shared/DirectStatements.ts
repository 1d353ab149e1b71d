/**
 * Speed seam: SQL statements without `@effect/sql`'s span and scope while tracing is off (core's Tracing.ts).
 *
 * `@effect/sql` runs every statement inside a `sql.execute` span and an `Effect.scoped` for its connection; for the
 * SQLite client's connections, which need no scope, those cost twice the statement itself (docs/performance.md).
 * Here the client's statements are wrapped in `DirectStatement`, which implements `@effect/sql`'s public
 * `Statement` interface by delegating to the statement `@effect/sql` made, except that running it while tracing is
 * off compiles it and executes it straight on the fiber's transaction connection, or on the client's own. With
 * tracing on, or under a row transformer (`Statement.withTransformer`), it runs as `@effect/sql` runs it, span
 * included; `raw`, `values`, `unprepared` and `stream` always do.
 */
import { SqlClient, type SqlError, Statement } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { Context, Effect, Effectable, FiberRef, Option } from "effect"
import { globalValue } from "effect/GlobalValue"

/** The seam's switch, read when the client is built: `false` keeps `@effect/sql`'s statements (A/B). */
export const DirectStatementsSeam: FiberRef.FiberRef<boolean> = globalValue(
  Symbol.for("@support-engine/storage/DirectStatementsSeam"),
  () => FiberRef.unsafeMake(true)
)

class DirectStatement<A> extends Effectable.Class<ReadonlyArray<A>, SqlError.SqlError>
  implements Statement.Statement<A>
{
  constructor(readonly inner: Statement.Statement<A>, readonly connection: Connection) {
    super()
  }
  get [Statement.FragmentId]() {
    return this.inner[Statement.FragmentId]
  }
  get segments() {
    return this.inner.segments
  }
  get raw() {
    return this.inner.raw
  }
  get withoutTransform() {
    return this.inner.withoutTransform
  }
  get stream() {
    return this.inner.stream
  }
  get values() {
    return this.inner.values
  }
  get unprepared() {
    return this.inner.unprepared
  }
  compile(withoutTransform?: boolean) {
    return this.inner.compile(withoutTransform)
  }
  commit(): Effect.Effect<ReadonlyArray<A>, SqlError.SqlError> {
    return Effect.withFiberRuntime((fiber) => {
      if (
        fiber.getFiberRef(FiberRef.currentTracerEnabled) ||
        Option.isSome(fiber.getFiberRef(Statement.currentTransformer))
      ) {
        return this.inner
      }
      const [sql, params] = this.inner.compile()
      const transaction = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
      const connection = Option.isSome(transaction) ? transaction.value[0] : this.connection
      return connection.execute(sql, params, undefined)
    })
  }
}

/** A statement, as against the other things the client makes (identifiers, helpers, fragments). */
const isStatement = (u: unknown): u is Statement.Statement<unknown> => Statement.isFragment(u) && Effect.isEffect(u)

/**
 * `client` whose statements (`sql\`...\`` and `sql.unsafe`) are `DirectStatement`s on `connection` (the client's
 * connection outside transactions). Everything else is the client's own.
 */
export const directStatements = (client: SqlClient.SqlClient, connection: Connection): SqlClient.SqlClient => {
  const direct = <A>(made: A): A | DirectStatement<unknown> =>
    isStatement(made) ? new DirectStatement(made, connection) : made
  // The client is a function with properties; the new one answers the same calls with the same properties.
  const sql = Object.assign(
    (strings: TemplateStringsArray, ...args: Array<unknown>) => direct(client(strings, ...args)),
    client,
    { unsafe: (text: string, params?: ReadonlyArray<unknown>) => direct(client.unsafe(text, params)) }
  ) as unknown as SqlClient.SqlClient
  return Object.assign(sql, { safe: sql })
}
