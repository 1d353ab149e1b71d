/**
 * Shrinking a failing run to fewer steps that still fail the same invariant. A run is its list of step seeds and
 * each step draws only from its own seed, so any subsequence of the list is a run of its own, replayed exactly: the
 * shrinker removes chunks of steps (halves, then quarters, down to single steps, as delta debugging does) and keeps
 * every removal after which the run still breaks the same invariant, cut at the step where it breaks. This is the
 * shrinking of property-based testing (Hypothesis shrinks its recorded choices the same way) applied to a
 * simulation; FoundationDB and TigerBeetle keep the seed as the reproduction and shorten by hand.
 */
import type { SimulationOptions, SimulationResult } from "./Options.js"
import { simulate } from "./Run.js"

export interface Shrunk {
  /** The shortest failing run found. */
  readonly result: SimulationResult & { readonly _tag: "Failed" }
  /** Runs tried. */
  readonly runs: number
}

/**
 * Shrinks `failed` (a run of `options`) within `budget` runs. The answer still fails the same invariant; with no
 * budget left it is the shortest found so far.
 */
export const shrink = async (
  options: SimulationOptions,
  failed: SimulationResult & { readonly _tag: "Failed" },
  budget = 150
): Promise<Shrunk> => {
  let best = failed
  let runs = 0
  const attempt = async (seeds: ReadonlyArray<number>) => {
    runs++
    const result = await simulate({ ...options, stepSeeds: seeds, steps: seeds.length })
    return result._tag === "Failed" && result.invariant === failed.invariant ? result : undefined
  }
  let chunk = Math.ceil(best.stepSeeds.length / 2)
  while (chunk >= 1 && runs < budget) {
    let start = 0
    let removedAny = false
    while (start < best.stepSeeds.length && runs < budget) {
      const seeds = [...best.stepSeeds.slice(0, start), ...best.stepSeeds.slice(start + chunk)]
      const shorter = seeds.length > 0 ? await attempt(seeds) : undefined
      if (shorter !== undefined) {
        best = shorter
        removedAny = true
      } else {
        start += chunk
      }
    }
    if (!removedAny || chunk > best.stepSeeds.length) chunk = Math.floor(chunk / 2)
  }
  return { result: best, runs }
}
