/** What every benchmark server child shares: its configuration from the parent, and the ready signal. */
import { openRaw } from "../RawStore.js"

export const serverConfig = () => {
  const database = process.env.BENCH_DB
  const port = Number(process.env.BENCH_PORT)
  if (database === undefined || !Number.isInteger(port)) throw new Error("BENCH_DB and BENCH_PORT are required")
  return { database, port }
}

/** Tells the parent (which polls /health anyway) that the server listens. */
export const ready = (port: number) => process.send?.({ ready: port })

/** Parses `page`/`per_page` like the engine: integers, per_page 1..100, page >= 1, defaults 15 and 1. */
export const pageQuery = (
  params: URLSearchParams
):
  | { readonly _tag: "Page"; readonly page: number; readonly perPage: number }
  | { readonly _tag: "Invalid"; readonly errors: Record<string, Array<string>> } =>
{
  const errors: Record<string, Array<string>> = {}
  const parse = (name: string, fallback: number, min: number, max: number) => {
    const raw = params.get(name)
    if (raw === null) return fallback
    const n = Number(raw)
    if (raw === "" || !Number.isInteger(n) || n < min || n > max) {
      errors[name] = [`The ${name} must be an integer between ${min} and ${max}.`]
    }
    return n
  }
  const page = parse("page", 1, 1, Number.MAX_SAFE_INTEGER)
  const perPage = parse("per_page", 15, 1, 100)
  return Object.keys(errors).length > 0 ? { _tag: "Invalid", errors } : { _tag: "Page", page, perPage }
}

export { openRaw }
