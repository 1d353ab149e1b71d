#!/usr/bin/env node
/**
 * The `support-engine` executable as `pnpm start` runs it: loads the bundled command (`support-engine.cjs`, one
 * CommonJS file) through V8's code cache: V8 deserializes the compiled code of the top level and of every function
 * that ran during a start instead of compiling them (docs/performance.md). Node 22's own compile cache
 * (`module.enableCompileCache()`) holds only what is compiled as a module loads, its top level, not the functions a
 * start then runs: measured on `serve` (median of 10 starts to "listening", Node 22.23, 2 cores), 265 ms with this
 * cache, 358 ms with Node's, 411 ms with none.
 *
 * The cache (`support-engine.cjs.cache`, beside the bundle) is written by the build, from a start of `serve` on a
 * temporary database, so that it also holds the functions a start runs (V8 compiles a function on its first call).
 * A start that finds no usable cache (another Node version, other V8 flags) writes one a few seconds in. Writing can
 * fail (a read-only directory): the start then just runs without one.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Script } from "node:vm"

const dir = dirname(fileURLToPath(import.meta.url))
const file = join(dir, "support-engine.cjs")
const cacheFile = `${file}.cache`

/** Compiles the bundle through the code cache, writing the cache when there is none that V8 accepts. */
const runCached = () => {
  // bin.ts's hashbang line is only valid at the very start of a script, not inside the wrapper below.
  const source = readFileSync(file, "utf8").replace(/^#!.*/, "")
  let cachedData
  try {
    cachedData = readFileSync(cacheFile)
  } catch {
    cachedData = undefined
  }
  // The wrapper Node's own CommonJS loader puts around a module, on the bundle's first line so that its line numbers
  // (stack traces) stay right.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData
  })
  const writeCache = () => {
    const temporary = `${cacheFile}.${process.pid}`
    try {
      writeFileSync(temporary, script.createCachedData())
      renameSync(temporary, cacheFile)
    } catch {
      rmSync(temporary, { force: true })
    }
  }
  if (process.env.SUPPORT_ENGINE_WRITE_CODE_CACHE === "1") {
    // The build's training start (build.mjs): the cache then holds what a whole start of `serve` compiled.
    process.once("exit", writeCache)
  } else if (cachedData === undefined || script.cachedDataRejected === true) {
    // Without a usable cache (one built by another Node version or with other V8 flags), a start that lives a few
    // seconds writes one. A short command (`token create`) exits before: such a start would add little to it.
    setTimeout(writeCache, 3_000).unref()
  }
  const module = { exports: {} }
  script.runInThisContext()(module.exports, createRequire(file), module, file, dir)
}

// Node applies source maps (`--enable-source-maps`) only to what its own loaders load, not to a `vm.Script`: with
// them on, the bundle is loaded as a plain CommonJS module, without the cache, so stack traces name source lines.
if (process.sourceMapsEnabled) createRequire(import.meta.url)(file)
else runCached()
