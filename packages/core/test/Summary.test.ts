/** The extractive summary (D61): the customer's first request, what was answered, what is still open. */
import { assert, describe, it } from "@effect/vitest"
import { extractiveSummary, MAX_SUMMARY_LENGTH } from "@support-engine/core"

describe("extractiveSummary (D61)", () => {
  it("an empty conversation is the empty string", () => {
    assert.strictEqual(extractiveSummary([]), "")
  })

  it("the first request, the latest reply and the latest unanswered customer message", () => {
    assert.strictEqual(
      extractiveSummary([
        { role: "customer", content: "My order is late." },
        { role: "agent", content: "Sorry, let me check." },
        { role: "customer", content: "Any news?" },
        { role: "agent", content: "It ships today." },
        { role: "customer", content: "Can I change the address?" },
        { role: "customer", content: "To Berlin please." }
      ]),
      "Customer's request: My order is late.\nAnswered: It ships today.\nStill open: To Berlin please."
    )
    assert.strictEqual(
      extractiveSummary([{ role: "customer", content: "Hi" }, { role: "agent", content: "Done." }]),
      "Customer's request: Hi\nAnswered: Done.\nStill open: nothing; the last message is a reply."
    )
    assert.strictEqual(extractiveSummary([{ role: "agent", content: "Welcome!" }]), "Answered: Welcome!")
  })

  it("long messages are quoted up to 300 characters each, so the summary stays within 1,000", () => {
    const long = "word ".repeat(400)
    const summary = extractiveSummary([
      { role: "customer", content: long },
      { role: "agent", content: long },
      { role: "customer", content: long }
    ])
    assert.isAtMost(summary.length, MAX_SUMMARY_LENGTH)
    assert.deepStrictEqual(summary.split("\n").map((line) => line.endsWith("…")), [true, true, true])
  })
})
