/** `pnpm eval` (D61) on a slice of the question set: it runs end to end and ends with its one summary line. */
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { sample, score, summaryLine } from "../src/eval/Eval.js"
import { QUESTIONS } from "../src/eval/Questions.js"

const root = fileURLToPath(new URL("../..", import.meta.url))
const LINE =
  /^eval: provider=local n=(\d+) recall@5=(\d\.\d{3}) answer_accuracy=(\d\.\d{3}) handoff_precision=(\d\.\d{3}) handoff_recall=(\d\.\d{3})$/

describe("pnpm eval (D61)", () => {
  it("the labelled set: 30+ articles in two languages, 150+ questions of every kind", async () => {
    const { ARTICLES } = await import("../src/eval/Articles.js")
    expect(ARTICLES.length).toBeGreaterThanOrEqual(30)
    expect(QUESTIONS.length).toBeGreaterThanOrEqual(150)
    for (const kind of ["answer", "no_answer", "escalation", "trap"]) {
      expect(QUESTIONS.some((q) => q.kind === kind), kind).toBe(true)
    }
    expect(new Set(QUESTIONS.map((q) => q.lang))).toEqual(new Set(["en", "fr"]))
  })

  it("a slice spreads over the set; the scores and the line are as documented", () => {
    const slice = sample(QUESTIONS, 10)
    expect(slice.length).toBe(10)
    expect(new Set(slice.map((q) => q.kind)).size).toBeGreaterThan(1)
    const answer = QUESTIONS.find((q) => q.kind === "answer" && q.source === "refunds" && q.lang === "en")!
    const none = QUESTIONS.find((q) => q.kind === "no_answer")!
    const s = score([
      { question: answer, retrieved: ["refunds"], answer: null, cited: [], handoff: "no_answer" },
      { question: none, retrieved: [], answer: null, cited: [], handoff: "no_answer" }
    ])
    expect(s).toEqual({ n: 2, recall: 1, accuracy: 0, handoffPrecision: 0.5, handoffRecall: 1 })
    expect(summaryLine("local", s)).toBe(
      "eval: provider=local n=2 recall@5=1.000 answer_accuracy=0.000 handoff_precision=0.500 handoff_recall=1.000"
    )
  })

  it("runs on a small slice with the local model and prints the line last, the same on a second run", async () => {
    const run = async () => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", "bench/src/eval/main.ts", "--limit", "24"],
        { cwd: root, env: { ...process.env, SUPPORT_AI_PROVIDER: "local" } }
      )
      return stdout.trim().split("\n")
    }
    const first = await run()
    const last = first.at(-1)!
    const match = LINE.exec(last)
    expect(match, last).not.toBeNull()
    expect(match![1]).toBe("24")
    for (const figure of match!.slice(2)) expect(Number(figure)).toBeLessThanOrEqual(1)
    expect(first.some((line) => line.startsWith("  fr: "))).toBe(true)
    expect((await run()).at(-1)).toBe(last)
  }, 120_000)
})
