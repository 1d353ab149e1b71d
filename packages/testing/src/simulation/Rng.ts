/**
 * The simulator's choices. Every step draws from its own `Random` made from the step's seed, so a step does the
 * same thing wherever it runs: in the run that recorded it, and in a shorter replay made by shrinking (Shrink.ts).
 */
import { Effect, Random } from "effect"

export interface Rng {
  /** An integer in [min, max). */
  readonly int: (min: number, max: number) => Effect.Effect<number>
  readonly chance: (p: number) => Effect.Effect<boolean>
  readonly pick: <A>(items: ReadonlyArray<A>) => Effect.Effect<A>
}

/** Effect's generator seeded with `seed` (the one `Random.withSeed` provides), to draw from for as long as needed. */
const seeded = (seed: string | number): Random.Random => Effect.runSync(Random.withSeed(Random.Random, seed))

/** An integer in [min, max) from `random`. */
const intOf = (random: Random.Random, min: number, max: number) =>
  Math.floor(random.nextDoubleUnsafe() * (max - min)) + min

export const makeRng = (seed: number): Rng => {
  const random = seeded(seed)
  const int = (min: number, max: number) => Effect.sync(() => intOf(random, min, max))
  return {
    int,
    chance: (p) => Effect.sync(() => random.nextDoubleUnsafe() < p),
    pick: (items) => Effect.map(int(0, items.length), (i) => items[i]!)
  }
}

/** The seeds of `steps` steps of the run `seed`. */
export const stepSeedsOf = (seed: number, steps: number): Effect.Effect<ReadonlyArray<number>> =>
  Effect.sync(() => {
    const random = seeded(`steps:${seed}`)
    return Array.from({ length: steps }, () => intOf(random, 0, 2 ** 31 - 1))
  })
