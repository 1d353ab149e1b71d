import { defineConfig } from "vitest/config"

// One project per package and example, each with its own vitest.config.ts (vitest 3.2's `projects`, which replaces
// the deprecated vitest.workspace.ts).
export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts", "examples/*/vitest.config.ts", "bench/vitest.config.ts"]
  }
})
