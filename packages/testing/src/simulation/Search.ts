/**
 * The first index of a sorted list whose item is not `before` the sought value (a lower bound): the simulator's
 * clock and delivery oracle search lists they keep in time order after every step.
 */
export const lowerBound = <A>(items: ReadonlyArray<A>, before: (item: A) => boolean): number => {
  let lo = 0
  let hi = items.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (before(items[mid]!)) lo = mid + 1
    else hi = mid
  }
  return lo
}
