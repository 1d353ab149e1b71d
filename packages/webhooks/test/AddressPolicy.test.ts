/** The webhook URL policy (D36, D47): refused by default, allowed with `SUPPORT_WEBHOOK_ALLOW_PRIVATE`. */
import { assert, describe, it } from "@effect/vitest"
import {
  checkWebhookUrl,
  CreateWebhook,
  HostResolver,
  isRefusedAddress,
  REFUSED_ADDRESS_MESSAGE,
  UpdateWebhook,
  Webhooks
} from "@support-engine/core"
import { Effect, Layer } from "effect"
import { DnsHostResolver } from "../src/DnsHostResolver.js"
import { answer, as, makeWorkspace, scriptedResolver, scriptedTransport, servicesLayer } from "./Harness.js"

const refusedByDefault = [
  "http://hooks.example.com/in",
  "https://127.0.0.1/in",
  "https://127.255.0.9/in",
  "https://[::1]/in",
  "https://10.0.0.1/in",
  "https://10.255.255.255/in",
  "https://172.16.0.1/in",
  "https://172.31.255.255/in",
  "https://192.168.1.20/in",
  "https://169.254.169.254/latest/meta-data",
  "https://0.0.0.0/in",
  "https://[::]/in",
  "https://[fe80::1]/in",
  "https://[fd12:3456::1]/in",
  "https://[::ffff:127.0.0.1]/in",
  "https://2130706433/in", // 127.0.0.1 written as a number
  "https://localhost/in", // the operating system's resolver answers 127.0.0.1 / ::1
  "https://internal.example.com/in", // scripted: a private address
  "https://mixed.example.com/in" // scripted: one public and one private address
]

const resolver = scriptedResolver({
  "internal.example.com": ["10.1.2.3"],
  "mixed.example.com": ["93.184.216.34", "192.168.0.10"],
  "v6.example.com": ["2606:2800:220:1:248:1893:25c8:1946"]
})

/** `localhost` goes to the real resolver; every other name to the script. */
const withLocalhost = Layer.effect(
  HostResolver,
  Effect.gen(function*() {
    const system = yield* Effect.provide(HostResolver, DnsHostResolver)
    const scripted = yield* Effect.provide(HostResolver, resolver)
    return { resolve: (host) => host === "localhost" ? system.resolve(host) : scripted.resolve(host) }
  })
)

const check = (url: string, allowPrivate: boolean) =>
  Effect.result(checkWebhookUrl(url, allowPrivate)).pipe(Effect.provide(withLocalhost))

describe("URL policy (D36, D47)", () => {
  it.effect("http, loopback, private, link-local, unique-local and unspecified targets are refused by default", () =>
    Effect.gen(function*() {
      for (const url of refusedByDefault) {
        const result = yield* check(url, false)
        assert.isTrue(result._tag === "Failure", `${url} is refused`)
        if (result._tag === "Failure") assert.deepStrictEqual(Object.keys(result.failure.errors), ["url"])
      }
    }))

  it.effect("all of them are allowed with SUPPORT_WEBHOOK_ALLOW_PRIVATE", () =>
    Effect.gen(function*() {
      for (const url of refusedByDefault) {
        assert.strictEqual((yield* check(url, true))._tag, "Success", `${url} is allowed`)
      }
    }))

  it.effect("public addresses and names pass; ftp and names that do not resolve never do", () =>
    Effect.gen(function*() {
      for (const url of ["https://hooks.example.com/in", "https://93.184.216.34/x", "https://v6.example.com/"]) {
        assert.strictEqual((yield* check(url, false))._tag, "Success", url)
      }
      for (
        const url of [
          "https://172.15.255.255/",
          "https://172.32.0.1/",
          "https://11.0.0.1/",
          "https://[2606:4700:4700::1111]/"
        ]
      ) {
        assert.strictEqual((yield* check(url, false))._tag, "Success", `${url}: just outside a refused range`)
      }
      const messages = {
        http: yield* check("http://hooks.example.com/", false),
        unknown: yield* check("https://nowhere.example.com/", false),
        ftp: yield* check("ftp://hooks.example.com/", true)
      }
      assert.deepStrictEqual(
        Object.fromEntries(
          Object.entries(messages).map(([k, r]) => [k, r._tag === "Failure" ? r.failure.errors["url"] : null])
        ),
        {
          http: ["must be an https URL"],
          unknown: ["host name does not resolve"],
          ftp: ["must be an https URL"]
        }
      )
    }))

  it("classifies addresses at the range edges", () => {
    assert.isTrue(isRefusedAddress("172.16.0.0"))
    assert.isFalse(isRefusedAddress("172.15.255.255"))
    assert.isTrue(isRefusedAddress("169.254.0.1"))
    assert.isFalse(isRefusedAddress("169.255.0.1"))
    assert.isTrue(isRefusedAddress("fc00::1"))
    assert.isTrue(isRefusedAddress("fdff::1"))
    assert.isTrue(isRefusedAddress("febf::1"))
    // Outside 2000::/3 nothing is global unicast (D50): fe00::/9 is unassigned, fec0::/10 deprecated site-local.
    assert.isTrue(isRefusedAddress("fe00::1"))
    assert.isTrue(isRefusedAddress("fec0::1"))
    assert.isFalse(isRefusedAddress("2606:4700:4700::1111"))
    assert.isTrue(isRefusedAddress("100.100.100.200"))
    assert.isTrue(isRefusedAddress("not an address"))
  })

  it.effect("the service answers a refused URL with a 422 on url, on create and on update (D36)", () =>
    Effect.gen(function*() {
      const transport = yield* scriptedTransport(() => answer(200))
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const refused = yield* Effect.flip(
          webhooks.create(new CreateWebhook({ url: "https://localhost/in", events: ["*"] })).pipe(as(principal))
        )
        if (refused._tag !== "ValidationError") return assert.fail(`expected a ValidationError, got ${refused._tag}`)
        assert.strictEqual(refused.status, 422)
        assert.deepStrictEqual(refused.errors, {
          url: [REFUSED_ADDRESS_MESSAGE]
        })
        const created = yield* webhooks.create(
          new CreateWebhook({ url: "https://hooks.example.com/in", events: ["*"] })
        )
          .pipe(as(principal))
        const update = yield* Effect.flip(
          webhooks.update(created.id, new UpdateWebhook({ url: "https://10.0.0.1/" })).pipe(as(principal))
        )
        assert.deepStrictEqual(update._tag === "ValidationError" ? Object.keys(update.errors) : update._tag, ["url"])
      }).pipe(Effect.provide(servicesLayer(transport.layer, {}, withLocalhost)))
    }))

  it.effect("with the flag on, the service accepts http://localhost", () =>
    Effect.gen(function*() {
      const transport = yield* scriptedTransport(() => answer(200))
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const created = yield* Effect.flatMap(
          Webhooks,
          (w) => w.create(new CreateWebhook({ url: "http://localhost:9999/in", events: ["*"] }))
        ).pipe(as(principal))
        assert.strictEqual(created.url, "http://localhost:9999/in")
      }).pipe(Effect.provide(servicesLayer(transport.layer, { allowPrivate: true }, withLocalhost)))
    }))
})
