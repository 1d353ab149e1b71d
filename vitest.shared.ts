import type { ViteUserConfig } from "vitest/config"

const config: ViteUserConfig = {
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    sequence: { concurrent: false },
    // PostgreSQL refuses to start without a key for webhook secrets at rest (docs/configuration.md). A fixed test
    // key, never used outside tests; the tests of the key rules set their own configuration.
    env: { SUPPORT_SECRET_KEY: "lYLE4jAQ7f8zFNe9baKOpdPhkiVNDIps58NzH5fpU-A" }
  }
}

export default config
