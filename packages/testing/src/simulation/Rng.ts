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

export const makeRng = (seed: number): Rng => {
  const random = Random.make(seed)
  const int = (min: number, max: number) => random.nextIntBetween(min, max)
  return {
    int,
    chance: (p) => Effect.map(random.next, (x) => x < p),
    pick: (items) => Effect.map(int(0, items.length), (i) => items[i]!)
  }
}

/** The seeds of `steps` steps of the run `seed`. */
export const stepSeedsOf = (seed: number, steps: number): Effect.Effect<ReadonlyArray<number>> => {
  const random = Random.make(`steps:${seed}`)
  return Effect.forEach(Array.from({ length: steps }), () => random.nextIntBetween(0, 2 ** 31 - 1))
}
