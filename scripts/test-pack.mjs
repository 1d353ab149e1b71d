#!/usr/bin/env node
/**
 * `pnpm test:pack`: installs the engine as a host would, from the packed tarballs, and runs the README's programs.
 *
 * 1. `pnpm pack`s every package under packages/ into a temporary folder (after `pnpm build`, unless `--no-build`).
 * 2. Makes a host project in a temporary folder outside the workspace and runs README.md's install line in it, as
 *    written, with each `@support-engine/*` name given as its tarball (and the packages those depend on resolved to
 *    theirs through `overrides`, as the registry would); every other name (effect, @effect/platform-node,
 *    better-sqlite3) unpinned from the registry. No workspace links, no path mappings. Exactly one copy of `effect`
 *    must end up in the host. The host's own tools (typescript, @types/node, standardwebhooks) come first.
 * 3. Takes the programs from README.md (each fenced block after a `<!-- host: src/NAME.ts -->` line), typechecks them
 *    with `strict` and `skipLibCheck: false`, compiles and runs them with Node, and checks what they print.
 * 4. Starts `npx support-engine serve` in the host and calls /health and a list with the token it printed; then again
 *    with `SUPPORT_AI_PROVIDER=openai` and `=anthropic` against a loopback stand-in for each provider's API, and asks
 *    an agent a question that the stand-in answers.
 *
 * `--node PATH` runs everything (npm's install scripts included) with that Node binary (.ci/run passes Node 24's);
 * `--no-build` skips the build, `--tarballs DIR` takes packed tarballs from DIR, `--keep` leaves the host folder. Prints `N passed, N failed` last.
 *
 * better-sqlite3 13 ships its Node-API addons inside its package, so nothing is compiled and one install serves every
 * Node version.
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const args = process.argv.slice(2)
const option = (name) => {
  const at = args.indexOf(name)
  return at === -1 ? undefined : args[at + 1]
}
const node = resolve(option("--node") ?? process.execPath)
const keep = args.includes("--keep")
const version = execFileSync(node, ["-p", "process.version"], { encoding: "utf8" }).trim()
const label = `[test:pack node ${version}]`
const log = (line) => console.log(`${label} ${line}`)

// The Node under test first on PATH: npm's install scripts, `npx` and the CLI's `#!/usr/bin/env node` run with it.
const env = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` }

const run = (command, commandArgs, options = {}) => {
  const started = Date.now()
  try {
    return execFileSync(command, commandArgs, { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...options })
  } catch (error) {
    throw new Error(`${command} ${commandArgs.join(" ")} failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`)
  } finally {
    if (options.timed) log(`${command} ${commandArgs[0]}: ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
}

const results = []
const check = async (name, body) => {
  const started = Date.now()
  try {
    await body()
    results.push({ name, ok: true })
    log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
  } catch (error) {
    results.push({ name, ok: false })
    log(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`)
  }
}

const workspaceVersion = (name) => JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8"))

/** README.md's install line (the `npm install @support-engine/...` block): the names it installs. */
export const installLine = (markdown) => {
  const block = /```sh\n(npm install @support-engine\/[\s\S]*?)\n```/.exec(markdown)
  if (block === null) throw new Error("README.md has no `npm install @support-engine/...` block")
  return block[1].replace(/\\\n\s*/g, " ").trim().split(/\s+/).slice(2)
}

/** README.md's host programs: `<!-- host: src/promise.ts -->`, then a fenced block. */
export const readmePrograms = (markdown) => {
  const programs = new Map()
  const pattern = /<!-- host: (\S+) -->\n```ts\n([\s\S]*?)\n```/g
  for (const match of markdown.matchAll(pattern)) programs.set(match[1], `${match[2]}\n`)
  return programs
}

const host = await mkdtemp(join(tmpdir(), `support-engine-host-${version}-`))
if (host.startsWith(`${root}/`)) throw new Error("the host must be outside the workspace")
const servers = []
try {
  // The build runs the workspace's own code (the CLI's code-cache start uses the workspace's better-sqlite3), so it
  // runs with the Node that installed the workspace, not the Node under test.
  if (!args.includes("--no-build")) run("pnpm", ["-s", "build"], { cwd: root, timed: true, env: process.env })

  // `--tarballs DIR`: packed already (.ci/run packs once for its two parallel runs).
  const given = option("--tarballs")
  const tarballs = given === undefined ? join(host, "tarballs") : resolve(given)
  if (given === undefined) {
    const packages = readdirSync(join(root, "packages")).filter((dir) =>
      existsSync(join(root, "packages", dir, "package.json"))
    )
    for (const dir of packages) {
      run("pnpm", ["pack", "--pack-destination", tarballs], { cwd: join(root, "packages", dir) })
    }
  }
  const files = readdirSync(tarballs).filter((file) => file.endsWith(".tgz"))
  log(`${given === undefined ? "packed" : "using"} ${files.length} packages`)
  if (files.length !== 7) throw new Error(`expected the 7 packages' tarballs in ${tarballs}, found ${files.length}`)

  const app = join(host, "app")
  mkdirSync(join(app, "src"), { recursive: true })
  const programs = readmePrograms(readFileSync(join(root, "README.md"), "utf8"))
  for (const [file, source] of programs) writeFileSync(join(app, file), source)

  // The host starts with nothing but its own tools; the engine and its peers come from the README's install line.
  const internal = Object.fromEntries(files.map((file) => [
    file.replace(/^support-engine-(.*)-\d+\.\d+\.\d+.*\.tgz$/, "@support-engine/$1"),
    `file:${join(tarballs, file)}`
  ]))
  const line = installLine(readFileSync(join(root, "README.md"), "utf8"))
  log(`README install line: npm install ${line.join(" ")}`)
  // Stands in for the registry: a package of the engine that the named ones depend on resolves to its tarball (npm
  // refuses an override of a package the host names itself, so those are given as tarballs on the line instead).
  const overrides = Object.fromEntries(Object.entries(internal).filter(([name]) => !line.includes(name)))
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify(
      {
        name: "host",
        private: true,
        type: "module",
        overrides,
        devDependencies: {
          typescript: workspaceVersion("typescript").version,
          "@types/node": `^${version.slice(1).split(".")[0]}`,
          standardwebhooks: "^1.0.0"
        }
      },
      null,
      2
    )
  )
  // The line as written, each of the engine's names given as its tarball; every other name unpinned.
  const installArgs = line.map((name) => internal[name] ?? name)
  // What a host's strict TypeScript setup looks like; lib DOM: see docs/packages.md "Host projects".
  writeFileSync(
    join(app, "tsconfig.json"),
    JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2022", "DOM"],
          types: ["node"],
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: false,
          outDir: "dist",
          rootDir: "src"
        },
        include: ["src"]
      },
      null,
      2
    )
  )

  await check("npm install of the tarballs", async () => {
    run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: app, timed: true })
    run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...installArgs], { cwd: app, timed: true })
    // One Effect: a host's TestClock, Layers and services reach the engine only if there is a single copy.
    const copies = run("find", [
      join(app, "node_modules"),
      "-path",
      "*/effect/package.json",
      "-not",
      "-path",
      "*/@effect/*"
    ])
      .split("\n").filter((line) => /node_modules\/effect\/package\.json$/.test(line))
    if (copies.length !== 1) throw new Error(`expected one copy of effect, found:\n${copies.join("\n")}`)
    for (const link of run("find", [join(app, "node_modules"), "-maxdepth", "2", "-type", "l"]).split("\n")) {
      if (link !== "" && !link.includes("/.bin")) throw new Error(`a link in node_modules: ${link}`)
    }
  })

  await check(
    `README programs typecheck (strict, skipLibCheck false): ${[...programs.keys()].join(", ")}`,
    async () => {
      if (programs.size < 3) throw new Error(`README.md has ${programs.size} host programs, expected at least 3`)
      run(node, [join(app, "node_modules", "typescript", "bin", "tsc"), "-p", app], { cwd: app, timed: true })
    }
  )

  const runProgram = (file, expected) =>
    check(`README program ${file}`, async () => {
      const compiled = join(app, file.replace(/^src\//, "dist/").replace(/\.ts$/, ".js"))
      const output = run(node, [compiled], { cwd: app, timeout: 120_000 })
      for (const pattern of expected) {
        if (!pattern.test(output)) throw new Error(`output lacks ${pattern}:\n${output}`)
      }
    })
  await runProgram("src/promise.ts", [
    /^webhook delivered and verified: conversation\.customer\.message\.created$/m,
    / conversation\.customer\.message\.created$/m,
    /conversation\.created/,
    /customer\.created/
  ])
  await runProgram("src/effect.ts", [
    /^expired token refused: Unauthenticated 401$/m,
    /^created at 1970-01-01T00:00:00/m
  ])
  await runProgram("src/http.ts", [
    /^GET \/v1\/customers -> 1 customer: grace@example\.com$/m,
    /^not found: NotFound 404$/m
  ])

  /** `npx support-engine serve` in the host with `extra` in its environment; resolves once it printed its token. */
  const startServe = async (database, extra = {}) => {
    const child = spawn("npx", ["--no-install", "support-engine", "serve"], {
      cwd: app,
      env: {
        ...env,
        SUPPORT_PORT: "0",
        SUPPORT_HOST: "127.0.0.1",
        SUPPORT_DATABASE_URL: `file:${join(host, database)}`,
        ...extra
      },
      stdio: ["ignore", "pipe", "pipe"],
      // npx runs the bin in a child of its own and does not pass SIGTERM on; a group of its own lets `finally` stop
      // the server itself, which would otherwise keep running and hold this script's pipes open.
      detached: true
    })
    servers.push(child)
    let stdout = ""
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += chunk))
    return new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`no start within 60 s:\n${stdout}\n${stderr}`)), 60_000)
      child.stdout.on("data", (chunk) => {
        stdout += chunk
        const listening = /listening on (\S+)/.exec(stdout)
        const exported = /export SUPPORT_TOKEN='([^']+)'/.exec(stdout)
        if (listening !== null && exported !== null) {
          clearTimeout(timer)
          ok({ url: listening[1], token: exported[1] })
        }
      })
      child.once("exit", (code) => fail(new Error(`serve exited (${code}):\n${stdout}\n${stderr}`)))
    })
  }

  await check("npx support-engine serve: /health and a list with the printed token", async () => {
    const { token, url } = await startServe("serve.db")
    const health = await fetch(`${url}/health`)
    if (health.status !== 200) throw new Error(`/health: ${health.status}`)
    const list = await fetch(`${url}/v1/customers`, { headers: { authorization: `Bearer ${token}` } })
    const body = await list.json()
    if (list.status !== 200 || !Array.isArray(body.data)) {
      throw new Error(`/v1/customers: ${list.status} ${JSON.stringify(body)}`)
    }
  })

  // A remote model provider from the installed package: a loopback stand-in for its API answers every call.
  const answer = "We ship to every country within five days."
  const providers = {
    openai: {
      reply: {
        id: "r",
        object: "response",
        status: "completed",
        created_at: 1,
        model: "m",
        output: [{
          id: "o",
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: answer, annotations: [] }]
        }],
        usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 }
      },
      env: (origin) => ({
        SUPPORT_AI_PROVIDER: "openai",
        SUPPORT_OPENAI_API_KEY: "sk-test",
        SUPPORT_OPENAI_BASE_URL: `${origin}/v1`
      })
    },
    anthropic: {
      reply: {
        id: "m",
        type: "message",
        role: "assistant",
        model: "m",
        content: [{ type: "text", text: answer }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 }
      },
      env: (origin) => ({
        SUPPORT_AI_PROVIDER: "anthropic",
        SUPPORT_ANTHROPIC_API_KEY: "sk-ant-test",
        SUPPORT_ANTHROPIC_BASE_URL: origin
      })
    }
  }
  for (const [name, provider] of Object.entries(providers)) {
    await check(
      `npx support-engine serve with SUPPORT_AI_PROVIDER=${name}: /health, and an agent answers through the provider`,
      async () => {
        const stub = createServer((req, res) => {
          req.resume()
          req.on("end", () => {
            res.writeHead(200, { "content-type": "application/json" })
            res.end(JSON.stringify(provider.reply))
          })
        })
        await new Promise((ok) => stub.listen(0, "127.0.0.1", ok))
        try {
          const { token, url } = await startServe(`${name}.db`, {
            ...provider.env(`http://127.0.0.1:${stub.address().port}`),
            SUPPORT_DEFAULT_AGENT_MODEL: "test-model"
          })
          if ((await fetch(`${url}/health`)).status !== 200) throw new Error("/health did not answer 200")
          const call = async (method, path, body) => {
            const response = await fetch(`${url}/v1${path}`, {
              method,
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
              body: JSON.stringify(body)
            })
            const json = await response.json()
            if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
            return json
          }
          const article = await call("POST", "/kb-articles", {
            translations: [{ locale: "en", title: "Shipping", content: "We ship worldwide within five days." }]
          })
          await call("PUT", `/kb-articles/${article.id}`, { status: "published" })
          const agent = await call("POST", "/agents", { name: "Ada", description: "Answers shipping questions." })
          const asked = await call("POST", `/agents/${agent.id}/ask`, {
            question: "Do you ship worldwide?",
            channel: "chat"
          })
          if (asked.answer !== answer) {
            throw new Error(`the answer did not come from the provider: ${JSON.stringify(asked)}`)
          }
        } finally {
          stub.closeAllConnections()
          await new Promise((ok) => stub.close(ok))
        }
      }
    )
  }
} finally {
  for (const serve of servers) {
    await stopGroup(serve)
    serve.stdout.destroy()
    serve.stderr.destroy()
  }
  if (keep) log(`host kept in ${host}`)
  else await rm(host, { recursive: true, force: true })
}

/** SIGTERM to the whole process group (npx and the server under it), SIGKILL after 10 s. */
async function stopGroup(child) {
  const signal = (name) => {
    try {
      process.kill(-child.pid, name)
    } catch {
      // the group is already gone
    }
  }
  const exited = child.exitCode === null ? new Promise((ok) => child.once("exit", ok)) : Promise.resolve()
  signal("SIGTERM")
  const timer = setTimeout(() => signal("SIGKILL"), 10_000)
  await exited
  clearTimeout(timer)
  // the server may outlive npx by a moment; make sure nothing of the group is left
  await new Promise((ok) => setTimeout(ok, 500))
  signal("SIGKILL")
}

const failed = results.filter((result) => !result.ok).length
console.log(`node${version.slice(1).split(".")[0]}: ${results.length - failed} passed, ${failed} failed`)
process.exitCode = failed === 0 ? 0 : 1
