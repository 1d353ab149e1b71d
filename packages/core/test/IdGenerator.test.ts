import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Schema, TestClock } from "effect"
import { IdGenerator, uuidV7 } from "../src/shared/IdGenerator.js"

const isUuid = Schema.is(Schema.UUID)

describe("IdGenerator (D4, D5)", () => {
  it("uuidV7 puts the milliseconds first, version 7 and variant 10", () => {
    const id = uuidV7(0x0190_1234_5678, new Uint8Array(10).fill(0xff))
    assert.strictEqual(id, "01901234-5678-7fff-bfff-ffffffffffff")
  })

  it.effect("ids strictly increase within one millisecond and across milliseconds (monotonic UUIDv7)", () =>
    Effect.gen(function*() {
      const ids = yield* IdGenerator
      const made: Array<string> = []
      for (let i = 0; i < 500; i++) {
        made.push(yield* ids.uuid)
        if (i % 100 === 99) yield* TestClock.adjust(Duration.millis(1))
      }
      for (const id of made) assert.isTrue(isUuid(id), id)
      assert.deepStrictEqual([...made].sort(), made)
      assert.strictEqual(new Set(made).size, made.length)
      assert.isTrue(made[0]!.startsWith("00000000-0000-7"))
      assert.isTrue(made[499]!.startsWith("00000000-0004-7"))
    }).pipe(Effect.provide(IdGenerator.Default)))

  it.effect("each millisecond's first id draws fresh random bits, across refills of the pool", () =>
    Effect.gen(function*() {
      const ids = yield* IdGenerator
      const randomParts = new Set<string>()
      // 1,000 milliseconds draw 10,000 bytes: the 4 KiB pool is refilled twice on the way.
      for (let i = 0; i < 1000; i++) {
        randomParts.add((yield* ids.uuid).slice(15).replace("-", ""))
        yield* TestClock.adjust(Duration.millis(1))
      }
      assert.strictEqual(randomParts.size, 1000)
      const secrets = new Set<string>()
      for (let i = 0; i < 100; i++) secrets.add(Buffer.from(yield* ids.secret(32)).toString("hex"))
      assert.strictEqual(secrets.size, 100)
    }).pipe(Effect.provide(IdGenerator.Default)))

  it.effect("the deterministic generator follows TestRandom and TestClock", () =>
    Effect.gen(function*() {
      const ids = yield* IdGenerator
      const a = yield* ids.uuid
      const b = yield* ids.uuid
      assert.isTrue(a < b)
      assert.strictEqual((yield* ids.secret(32)).length, 32)
    }).pipe(Effect.provide(IdGenerator.Deterministic)))
})
