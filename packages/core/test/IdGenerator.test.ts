import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { IdGenerator, uuidV7 } from "../src/shared/IdGenerator.js"
import { makeIdStreams, withIdStream } from "../src/shared/IdStreams.js"

const isUuid = Schema.is(Schema.String.check(Schema.isUUID()))

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
    }).pipe(Effect.provide(IdGenerator.layer)))

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
    }).pipe(Effect.provide(IdGenerator.layer)))

  it.effect("the deterministic generator follows TestRandom and TestClock", () =>
    Effect.gen(function*() {
      const ids = yield* IdGenerator
      const a = yield* ids.uuid
      const b = yield* ids.uuid
      assert.isTrue(a < b)
      assert.strictEqual((yield* ids.secret(32)).length, 32)
    }).pipe(Effect.provide(IdGenerator.Deterministic)))

  /** Ids of the streams `a` and `b`, drawn in the order `order` gives, with the clock moved after the fourth. */
  const drawIn = (order: ReadonlyArray<"a" | "b">) =>
    Effect.gen(function*() {
      const ids = yield* Effect.provide(IdGenerator, IdGenerator.fromStreams(makeIdStreams("seed")))
      const made = { a: [] as Array<string>, b: [] as Array<string> }
      for (const [i, name] of order.entries()) {
        made[name].push(yield* ids.uuid.pipe(withIdStream(name)))
        if (i === 3) yield* TestClock.adjust(Duration.millis(1))
      }
      return made
    })

  it.effect("deterministic ids depend on their stream and its draws, not on how streams interleave (issue 19)", () =>
    Effect.gen(function*() {
      const one = yield* drawIn(["a", "a", "b", "b", "a", "b", "a", "b"])
      const two = yield* drawIn(["b", "a", "b", "a", "b", "a", "b", "a"])
      // The second run starts a millisecond later (the test's clock goes on): the same ids but for their time.
      const randomParts = (ids: ReadonlyArray<string>) => ids.map((id) => id.slice(14))
      assert.deepStrictEqual(randomParts(one.a), randomParts(two.a))
      assert.deepStrictEqual(randomParts(one.b), randomParts(two.b))
      for (const list of [one.a, one.b]) {
        for (const id of list) assert.isTrue(isUuid(id) && id[14] === "7", id)
        assert.deepStrictEqual([...list].sort(), list)
      }
      const all = [...one.a, ...one.b]
      assert.strictEqual(new Set(all).size, all.length)
    }))

  it.effect("ids drawn after a turn sort after every id before it, in any stream, the leader's first", () =>
    Effect.gen(function*() {
      const streams = makeIdStreams("seed")
      const ids = yield* Effect.provide(IdGenerator, IdGenerator.fromStreams(streams))
      const before = [yield* ids.uuid.pipe(withIdStream("a")), yield* ids.uuid.pipe(withIdStream("b"))]
      yield* streams.nextTurn("b")
      const after = [yield* ids.uuid.pipe(withIdStream("a")), yield* ids.uuid.pipe(withIdStream("b"))]
      for (const later of after) for (const earlier of before) assert.isTrue(earlier < later, `${earlier} ${later}`)
      // The turn's leader first, though it drew second.
      assert.isTrue(after[1]! < after[0]!)
      yield* TestClock.adjust(Duration.millis(1))
      const next = yield* ids.uuid.pipe(withIdStream("c"))
      for (const earlier of after) assert.isTrue(earlier < next)
    }))

  it.effect("secrets of the deterministic generator come from the stream too", () =>
    Effect.gen(function*() {
      const secret = (name: string) =>
        Effect.provide(
          Effect.flatMap(IdGenerator, (ids) => ids.secret(40).pipe(withIdStream(name))),
          IdGenerator.fromStreams(makeIdStreams("seed"))
        ).pipe(Effect.map((bytes) => Buffer.from(bytes).toString("hex")))
      assert.strictEqual(yield* secret("a"), yield* secret("a"))
      assert.notStrictEqual(yield* secret("a"), yield* secret("b"))
      assert.strictEqual((yield* secret("a")).length, 80)
    }).pipe(Effect.provide(Layer.empty)))
})
