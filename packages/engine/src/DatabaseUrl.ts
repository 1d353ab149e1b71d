/** Where the engine keeps its data when the host names no database. */
import { Config, Schema } from "effect"

export const DEFAULT_DATABASE_URL = "file:./data/support.db"

/**
 * `SUPPORT_DATABASE_URL`, default `file:./data/support.db`: the one place the server and the CLI read the database
 * URL from. An empty value is a configuration error naming the variable.
 */
export const DatabaseUrlConfig: Config.Config<string> = Config.schema(
  Schema.String.check(Schema.makeFilter((url) => url.trim().length > 0, { message: "must not be empty" })),
  "SUPPORT_DATABASE_URL"
).pipe(Config.withDefault(DEFAULT_DATABASE_URL))
