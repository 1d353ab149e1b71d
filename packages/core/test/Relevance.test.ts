/** Which retrieved passages answer a question (D53, D61): shared words, the content's common words, stop words. */
import { assert, describe, it } from "@effect/vitest"
import { Citation, type Passage, relevant, searchWords } from "@support-engine/core"

const passage = (n: number, title: string, text: string): Passage => ({
  citation: new Citation({
    type: "training_data",
    id: `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`,
    title,
    url: null
  }),
  locale: null,
  text
})

const titles = (ps: ReadonlyArray<Passage>) => ps.map((p) => p.citation.title)

describe("relevance", () => {
  it("search words drop English and French stop words", () => {
    assert.deepStrictEqual(searchWords("How do I reset my password, please?"), ["reset", "password"])
    assert.deepStrictEqual(searchWords("Comment puis-je changer mon adresse ?"), ["changer", "adresse"])
  })

  it("more shared words rank first; a word shared by more than three candidates alone is not an answer", () => {
    const lamps = [1, 2, 3, 4].map((n) => passage(n, `Lamp ${n}`, "Every lamp is lovely."))
    const refunds = passage(5, "Refunds", "Refunds of a lamp are paid within five days.")
    const question = searchWords("Can I get refunds for a lamp?")
    assert.deepStrictEqual(titles(relevant([...lamps, refunds], question)), ["Refunds"])
    // "lamp" alone, found in five candidates: nothing answers.
    assert.deepStrictEqual(relevant([...lamps, refunds], searchWords("Is my lamp blue?")), [])
    // A rarer word alone still answers, stems included ("refund" finds "Refunds").
    assert.deepStrictEqual(titles(relevant([...lamps, refunds], searchWords("refund"))), ["Refunds"])
  })
})
