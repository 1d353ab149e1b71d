/** Which retrieved passages answer a question (D53, D61): shared words, the content's common words, stop words. */
import { assert, describe, it } from "@effect/vitest"
import { choosePassages, Citation, commonnessWords, type Passage, relevant, searchWords } from "@support-engine/core"

const passage = (n: number, title: string, text: string, locale: string | null = null): Passage => ({
  citation: new Citation({
    type: locale === null ? "training_data" : "kb_article",
    id: `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`,
    title,
    url: null
  }),
  locale,
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

  it("a word's commonness counts the sources of every language, by the word and its shorter forms (D61)", () => {
    assert.deepStrictEqual(commonnessWords(["lampes", "nom"]), ["lampes", "lamp", "lampe", "nom"])
    // The French passages found for "lampes": two, but the content's English says "lamp" in four more sources.
    const french = [1, 2].map((n) => passage(n, `Lampe ${n}`, "Chaque lampe est belle.", "fr"))
    const english = [3, 4, 5, 6].map((n) => passage(n, `Lamp ${n}`, "Every lamp is lovely.", "en"))
    const question = searchWords("Louez-vous des lampes pour un tournage ?")
    assert.deepStrictEqual(titles(relevant(french, question)), ["Lampe 1", "Lampe 2"])
    assert.deepStrictEqual(relevant(french, question, english), [])
    assert.deepStrictEqual(choosePassages(french, question, "fr", english), [])
    // Translations of one article count once: the same two articles in both languages leave "lampe" rare.
    const translations = [1, 2].map((n) => passage(n, `Lamp ${n}`, "Every lamp is lovely.", "en"))
    assert.deepStrictEqual(titles(choosePassages(french, question, "fr", translations)), ["Lampe 1", "Lampe 2"])
  })
})
