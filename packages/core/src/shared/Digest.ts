/**
 * A fast, dependency-free 106-bit digest of a string: cyrb53 (a public-domain 53-bit hash) run with two seeds,
 * as 22 base-36 digits. It tells versions and requests apart (entity tags, idempotency fingerprints); it is not
 * a cryptographic hash and guards no secret. Core runs on any JavaScript runtime, so no `node:crypto` here.
 */
/** cyrb53's final mix of one seed's two lanes, as 11 base-36 digits. */
const finish = (h1: number, h2: number): string => {
  const a = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  const b = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909)
  return (4294967296 * (2097151 & b) + (a >>> 0)).toString(36).padStart(11, "0")
}

/**
 * cyrb53 with seeds 0 and 1, both in one pass over the text: every answer with an entity tag is hashed, and one
 * loop reads each character once (the result is the same as two runs).
 */
export const digest = (text: string): string => {
  let a1 = 0xdeadbeef
  let a2 = 0x41c6ce57
  let b1 = 0xdeadbeef ^ 1
  let b2 = 0x41c6ce57 ^ 1
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    a1 = Math.imul(a1 ^ ch, 2654435761)
    a2 = Math.imul(a2 ^ ch, 1597334677)
    b1 = Math.imul(b1 ^ ch, 2654435761)
    b2 = Math.imul(b2 ^ ch, 1597334677)
  }
  return `${finish(a1, a2)}${finish(b1, b2)}`
}
