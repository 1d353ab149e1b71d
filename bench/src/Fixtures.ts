/** What several benchmarks send or build alike: a customer's fields and the three HTTP operations' requests. */
import type { Operation } from "./InProcess.js"
import type { HttpRequestSpec } from "./Load.js"
import type { Seeded } from "./Seed.js"

/** Pages 1..200 in turn: the list cost the benchmark reports is the near-front pages every UI reads. */
export const pageFor = (n: number) => (n % 200) + 1

/** Customer `i`'s fields in the API's form, with every timestamp `at` (a `DateTime` or its encoded text). */
export const customerFields = <T>(i: number, at: T) => ({
  id: `00000000-0000-4000-8000-${String(i % 1_000_000_000_000).padStart(12, "0")}`,
  first_name: `First${i}`,
  last_name: `Last${i}`,
  email: `customer${i}@bench.example`,
  phone: null,
  locale: "en",
  country: "NL",
  company_id: null,
  avatar_url: null,
  first_seen_at: at,
  last_seen_at: at,
  created_at: at,
  updated_at: at
})

/** GET by id over the seeded ids, list pages 1..200, and a conversation create, with the seeded token. */
export const operationRequests = (seeded: Seeded): Record<Operation, HttpRequestSpec> => {
  const headers = { authorization: `Bearer ${seeded.token}`, "content-type": "application/json" }
  const ids = seeded.sampleIds
  let n = 0
  return {
    get: { method: "GET", headers, path: () => `/v1/customers/${ids[(n++ * 7919) % ids.length]}` },
    list: { method: "GET", headers, path: () => `/v1/customers?per_page=15&page=${pageFor(n++)}` },
    create: {
      method: "POST",
      headers,
      path: () => "/v1/conversations",
      body: () => JSON.stringify({ customer_id: ids[(n++ * 7919) % ids.length], subject: "Bench" })
    }
  }
}
