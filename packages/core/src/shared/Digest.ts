/**
 * A fast, dependency-free 106-bit digest of a string: cyrb53 (a public-domain 53-bit hash) run with two seeds,
 * as 22 base-36 digits. It tells versions and requests apart (entity tags, idempotency fingerprints); it is not
 * a cryptographic hash and guards no secret. Core runs on any JavaScript runtime, so no `node:crypto` here.
 */
const cyrb53 = (text: string, seed: number): string => {
  let h1 = 0xdeadbeef ^ seed
  let h2 = 0x41c6ce57 ^ seed
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ ch, 2654435761)
    h2 = Math.imul(h2 ^ ch, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36).padStart(11, "0")
}

export const digest = (text: string): string => `${cyrb53(text, 0)}${cyrb53(text, 1)}`
