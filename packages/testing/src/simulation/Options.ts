/**
 * What a simulation run is given and what it answers. A run is a list of step seeds drawn from the
 * run's seed; a replay (a shrunk run) gives that list itself.
 */

/**
 * Bugs the simulator can plant in the engine it drives, to show that its checks fail when they should
 * (docs/testing.md). Each is caught within the default steps (test/SimulationPlanted.test.ts).
 */
export const PLANTED_BUGS = [
  /** The receiver's record of `webhook-signature` is corrupted. */
  "drop-signature",
  /** The fan-out skips one webhook of every seventh event: a committed event never reaches a subscriber. */
  "skip-delivery",
  /** The transport sends every fifth request twice: the receiver gets an attempt the retry schedule did not make. */
  "duplicate-delivery",
  /** The customers list reports one more than the rows once a workspace has three. */
  "wrong-total",
  /** A customer of another workspace is found by id: isolation leaks. */
  "isolation-leak",
  /** An agent's reply is stored with a prohibited phrase appended: the guardrail is bypassed. */
  "prohibited-reply",
  /** An erased customer is still found by id (a copy from before the erasure): their data is read after it. */
  "stale-after-erase"
] as const
export type PlantedBug = typeof PLANTED_BUGS[number]

/** Steps of `pnpm simulate` when `--steps` is not given; each planted bug is caught within them. */
export const DEFAULT_STEPS = 300

export interface SimulationOptions {
  readonly seed: number
  /** Steps to run; with `stepSeeds`, its length is used. */
  readonly steps: number
  /**
   * `file::memory:`, a `file:` URL, or a PostgreSQL server URL (a fresh database is made on it and dropped after).
   * Default: a SQLite file in a temporary directory when crashes are on, else in memory.
   */
  readonly databaseUrl?: string | undefined
  /** Crash the engine now and then and reopen it on the same database (default true; not in memory). */
  readonly crashes?: boolean | undefined
  readonly plantBug?: PlantedBug | undefined
  /** The steps to run, as their seeds: a replay of a recorded (or shrunk) run. */
  readonly stepSeeds?: ReadonlyArray<number> | undefined
  /**
   * Every how many steps the full checks run (every list of every workspace, every webhook's state against the
   * engine's); in between, only what the step touched. Default 25. 1 checks everything every step.
   */
  readonly fullCheckEvery?: number | undefined
  /** Called as each step starts (and once more, with `steps + 1`, for the final quiet period): a run's heartbeat. */
  readonly onStep?: ((step: number) => void) | undefined
}

interface Ran {
  /** Every line of the run: the steps, what each receiver got, the checks at the end. */
  readonly trace: string
  /** The seeds of the steps run, in order: what `--replay` runs again. */
  readonly stepSeeds: ReadonlyArray<number>
}

export type SimulationResult =
  | Ran & { readonly _tag: "Ok"; readonly hash: string }
  | Ran & { readonly _tag: "Failed"; readonly step: number; readonly invariant: string }
