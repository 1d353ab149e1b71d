/**
 * Bundles the `support-engine` executable into one ES module, `dist/support-engine.mjs`, which `pnpm start` and
 * `pnpm cli` run. Loading one pre-built file instead of compiling every TypeScript source through tsx on each start
 * cut start-up from about 4 s to about 1 s here (docs/performance.md). The native SQLite driver stays external.
 * Modules loaded with `import()` (the `/docs` page's 3.4 MB script) go to chunks beside it, so start-up does not parse
 * them.
 *
 * Usage: `node build.mjs` builds the executable; `node build.mjs <outdir> <entry>...` bundles other entry points
 * the same way, one `<name>.mjs` per entry (the benchmark's servers, bench/src/main.ts). Prints nothing unless it
 * fails.
 */
import { build } from "esbuild"
import { readFile, rm } from "node:fs/promises"
import { basename, dirname, extname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))

/**
 * esbuild assigns modules to chunks by the import graph before tree-shaking, and `@effect/platform`'s index
 * re-exports `HttpApiScalar`, so the reference page's script would land in the chunk every start loads. Nothing
 * uses `HttpApiScalar` through the index (Reference.ts imports the module itself); were anything to, the build
 * fails on the missing export.
 */
const scalarOutOfIndex = {
  name: "scalar-out-of-index",
  setup(build) {
    build.onLoad({ filter: /@effect[\\/]platform[\\/]dist[\\/]esm[\\/]index\.js$/ }, async (args) => ({
      contents: (await readFile(args.path, "utf8")).replace(/^export \* as HttpApiScalar from .*$/m, ""),
      loader: "js"
    }))
  }
}

const [outdir, ...entries] = process.argv.slice(2)
const out = outdir === undefined ? join(here, "dist") : resolve(outdir)

// Chunk names carry content hashes: without this, every build would leave the previous build's chunks behind.
await rm(out, { recursive: true, force: true })

await build({
  entryPoints: outdir === undefined
    ? { "support-engine": join(here, "src/bin.ts") }
    : Object.fromEntries(entries.map((entry) => [basename(entry, extname(entry)), resolve(entry)])),
  outdir: out,
  outExtension: { ".js": ".mjs" },
  splitting: true,
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
  plugins: [scalarOutOfIndex],
  logLevel: "warning"
})
