/**
 * Bundles the `support-engine` executable, which `pnpm start` and `pnpm cli` run as `dist/bin/support-engine.mjs`.
 * Loading one pre-built file instead of compiling every TypeScript source through tsx on each start cut start-up
 * from about 4 s to about 1 s here (docs/performance.md). The native SQLite driver stays external.
 *
 * The executable is one CommonJS file, `dist/bin/support-engine.cjs`, and `dist/bin/support-engine.mjs` is `launcher.mjs`,
 * which compiles it through V8's code cache (launcher.mjs says why not Node's own compile cache). Modules loaded with
 * `import()` (the `/docs` page's 3.2 MB script, which `effect`'s HttpApiScalar imports when the page is first built,
 * undici, the PostgreSQL client, the command tree and `effect/cli`) are in that file too, behind lazy initialisers:
 * V8 compiles a function on its first call, and a start of `serve` evaluates none of them.
 *
 * Usage: `node build.mjs` builds the executable, unless it is up to date (`SUPPORT_ENGINE_REBUILD=1` builds it
 * anyway); `node build.mjs <outdir> <entry>...` bundles other entry points as ES modules, one `<name>.mjs` per entry,
 * with `import()`ed modules in chunks beside them (the benchmark's servers, bench/src/main.ts). Prints nothing unless
 * it fails.
 */
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { chmod, copyFile, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { basename, dirname, extname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))

const [outdir, ...entries] = process.argv.slice(2)
const out = outdir === undefined ? join(here, "dist", "bin") : resolve(outdir)

/**
 * The executable is rebuilt only when something it is built from changed (by size and modification time): every file
 * esbuild read, this script, the launcher, and the Node binary and V8 flags (the code cache is only valid for those).
 * Building it takes 2-3 s here (esbuild, then the code cache's training start), and `pnpm start` builds before every
 * start; finding nothing to do takes about 0.2 s.
 */
const stampFile = join(out, "build-inputs.json")
const stampOf = async (files) => {
  const hash = createHash("sha256")
  hash.update(JSON.stringify([process.execPath, process.version, process.execArgv, process.env.NODE_OPTIONS ?? ""]))
  // Size and modification time, as make does: reading and hashing the 1,200 files took a few hundred ms.
  for (const file of files) {
    const { mtimeMs, size } = await stat(file)
    hash.update(`${file}\0${mtimeMs}\0${size}\0`)
  }
  return hash.digest("hex")
}
const upToDate = async () => {
  try {
    const previous = JSON.parse(await readFile(stampFile, "utf8"))
    return previous.stamp === await stampOf(previous.files)
  } catch {
    // No stamp, or a file it lists is gone: build.
    return false
  }
}
if (outdir === undefined && process.env.SUPPORT_ENGINE_REBUILD !== "1" && await upToDate()) process.exit(0)

// Loaded only now: loading esbuild is a good part of a build that finds nothing to do.
const { build } = await import("esbuild")

// Chunk names carry content hashes: without this, every build would leave the previous build's chunks behind.
await rm(out, { recursive: true, force: true })

/**
 * Starts `serve` once on an empty database in a temporary directory, on a free port, asks it for /health, and stops
 * it: the launcher writes V8's code cache as that process exits (launcher.mjs). About a second of the build.
 */
const writeCodeCache = async () => {
  const temporary = await mkdtemp(join(tmpdir(), "support-engine-build-"))
  try {
    const child = spawn(process.execPath, [join(out, "support-engine.mjs"), "serve"], {
      env: {
        ...process.env,
        SUPPORT_ENGINE_WRITE_CODE_CACHE: "1",
        SUPPORT_DATABASE_URL: `file:${join(temporary, "build.db")}`,
        SUPPORT_HOST: "127.0.0.1",
        SUPPORT_PORT: "0"
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const exited = new Promise((ok) => child.once("exit", ok))
    const url = await new Promise((ok, fail) => {
      let stdout = ""
      child.stdout.on("data", (chunk) => {
        stdout += chunk
        const listening = /listening on (\S+)/.exec(stdout)
        if (listening !== null) ok(listening[1])
      })
      child.once("exit", (code) => fail(new Error(`the training start of serve exited (${code}): ${stderr}`)))
    })
    // The first request compiles the request path: a start's first /health runs it too.
    await fetch(`${url}/health`).then((response) => response.arrayBuffer())
    child.kill("SIGTERM")
    await exited
  } finally {
    await rm(temporary, { recursive: true, force: true })
  }
}

const common = {
  bundle: true,
  platform: "node",
  target: "node22",
  sourcemap: "linked",
  // better-sqlite3 loads a native addon; pg-native is an optional peer of pg that we do not use.
  external: ["better-sqlite3", "pg-native"],
  logLevel: "warning"
}

if (outdir === undefined) {
  const { metafile } = await build({
    ...common,
    entryPoints: { "support-engine": join(here, "src/bin.ts") },
    outdir: out,
    outExtension: { ".js": ".cjs" },
    format: "cjs",
    metafile: true
  })
  await copyFile(join(here, "launcher.mjs"), join(out, "support-engine.mjs"))
  await chmod(join(out, "support-engine.mjs"), 0o755)
  await writeCodeCache()
  const files = [
    fileURLToPath(import.meta.url),
    join(here, "launcher.mjs"),
    ...Object.keys(metafile.inputs).map((input) => resolve(input))
  ]
  await writeFile(stampFile, JSON.stringify({ stamp: await stampOf(files), files }))
} else {
  await build({
    ...common,
    entryPoints: Object.fromEntries(entries.map((entry) => [basename(entry, extname(entry)), resolve(entry)])),
    outdir: out,
    outExtension: { ".js": ".mjs" },
    splitting: true,
    format: "esm",
    // Bundled CommonJS dependencies call `require`, which an ES module does not have.
    banner: {
      js:
        "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
    }
  })
}
