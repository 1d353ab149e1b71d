/**
 * What makes a retrieved passage relevant to a customer's question, the same on every database: the index finds
 * candidates by any of the question's words (ranked by the database's own measure), and this module keeps the
 * passages that share enough of the question's words and ranks them by how many they share first. A passage that
 * shares a single word of a longer question (a "lamp" in a shop for lamps) is not an answer: the agent hands off.
 * How common a word is, is judged over the content of every language, since the index stems within one language
 * only and a translated article says "lampe" where its original says "lamp".
 */
import type { Passage } from "./Answer.js"
import { words } from "./Guardrails.js"

/** Passages handed to the model. */
export const PASSAGES = 5

/**
 * One passage per article: the translation in the preferred locale when it was retrieved, else the best one.
 * Training passages keep their rank.
 */
export const preferLocale = (passages: ReadonlyArray<Passage>, locale: string | null): ReadonlyArray<Passage> => {
  const chosen = new Map<string, Passage>()
  const lang = (l: string | null) => l?.toLowerCase().split("-")[0] ?? null
  for (const p of passages) {
    if (p.citation.type !== "kb_article") continue
    const current = chosen.get(p.citation.id)
    if (
      current === undefined ||
      (locale !== null && lang(p.locale) === lang(locale) && lang(current.locale) !== lang(locale))
    ) {
      chosen.set(p.citation.id, p)
    }
  }
  return passages.filter((p) => p.citation.type !== "kb_article" || chosen.get(p.citation.id) === p)
}

/** Words that say nothing about the subject, in English and French: searching them would match every passage. */
const STOP = new Set(
  ("the and for are but not you your with have this that from they will would there their what about which when " +
    "can how does did was were has had its our out who why all any get may use one i'm i'd it's don't please " +
    "want like need could should some much many there here them then than into over also just very now " +
    "les des une est pour que qui dans sur par avec vous votre vos nous notre nos mon mes son ses pas plus " +
    "quel quelle quels quelles comment combien puis peut elle ils sont aux ces cet cette").split(" ")
)

/** The search words of a question: distinct, three letters or more, no stop words, at most 32. */
export const searchWords = (question: string): ReadonlyArray<string> =>
  [...new Set(words(question).filter((w) => w.length >= 3 && !STOP.has(w)))].slice(0, 32)

/** Two words match when equal, or when the shorter (four letters or more) begins the longer: a crude stem. */
const sameStem = (a: string, b: string): boolean => {
  if (a === b) return true
  const [short, long] = a.length <= b.length ? [a, b] : [b, a]
  return short.length >= 4 && long.startsWith(short.length > 5 ? short.slice(0, -1) : short)
}

/** The question's search words that the passage (its title and text) contains. */
export const sharedWords = (passage: Passage, question: ReadonlyArray<string>): ReadonlyArray<string> => {
  const text = [...new Set(words(`${passage.citation.title} ${passage.text}`))]
  return question.filter((w) => text.some((t) => sameStem(w, t)))
}

/**
 * A word found in more than this many sources (articles or training items) does not, alone, make a passage an
 * answer: it is the vocabulary of the whole content (a "lamp" in a shop for lamps), not the subject of the question.
 */
export const COMMON = 3

/**
 * The words to look up, as written and in every language, to tell how common each question word is in the content:
 * the word and its shorter forms of four letters or more, which `sameStem` takes for the same word ("lamp" and
 * "lampe" for "lampes"). Commonness is a property of the content, not of the question's language.
 */
export const commonnessWords = (question: ReadonlyArray<string>): ReadonlyArray<string> => {
  const shorter = (w: string) => Array.from({ length: Math.max(0, w.length - 4) }, (_, i) => w.slice(0, 4 + i))
  return [...new Set(question.flatMap((w) => [w, ...shorter(w)]))]
}

/**
 * The relevant passages, most shared words first (the index's order among equals). A passage that shares one word
 * only is kept when that word is found in at most `COMMON` sources, counted among the passages and `pool` (more
 * passages of the content, any language) together.
 */
export const relevant = (
  passages: ReadonlyArray<Passage>,
  question: ReadonlyArray<string>,
  pool: ReadonlyArray<Passage> = []
): ReadonlyArray<Passage> => {
  const found = passages.map((passage, rank) => ({ passage, rank, shared: sharedWords(passage, question) }))
  const sources = new Map<string, Set<string>>()
  for (const p of [...passages, ...pool]) {
    for (const w of sharedWords(p, question)) {
      const ids = sources.get(w) ?? new Set<string>()
      sources.set(w, ids.add(p.citation.id))
    }
  }
  return found
    .filter((p) => p.shared.length >= 2 || (p.shared.length === 1 && sources.get(p.shared[0]!)!.size <= COMMON))
    .sort((a, b) => b.shared.length - a.shared.length || a.rank - b.rank)
    .map((p) => p.passage)
}

/**
 * The passages the model is given: one translation per article (the customer's language first), the relevant ones;
 * `pool` is what the index found for `commonnessWords`.
 */
export const choosePassages = (
  found: ReadonlyArray<Passage>,
  question: ReadonlyArray<string>,
  locale: string | null,
  pool: ReadonlyArray<Passage> = []
): ReadonlyArray<Passage> => relevant(preferLocale(found, locale), question, [...found, ...pool]).slice(0, PASSAGES)
