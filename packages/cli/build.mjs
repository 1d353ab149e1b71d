/**
 * Bundles the `support-engine` executable into one ES module, `dist/support-engine.mjs`, which `pnpm start` and
 * `pnpm cli` run. Loading one pre-built file instead of compiling every TypeScript source through tsx on each start
 * cut start-up from about 4 s to about 1 s here (docs/performance.md). The native SQLite driver stays external.
 * Usage: `node build.mjs` (prints nothing unless it fails).
 */
import { build } from "esbuild"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))

await build({
  entryPoints: [join(here, "src/bin.ts")],
  outfile: join(here, "dist/support-engine.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  // better-sqlite3 loads a native addon; pg-native is an optional peer of pg that we do not use.
  external: ["better-sqlite3", "pg-native"],
  // Bundled CommonJS dependencies call `require`, which an ES module does not have.
  banner: {
    js:
      "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
  },
  logLevel: "warning"
})
