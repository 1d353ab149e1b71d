/**
 * Guardrails of an AI agent's answer, as pure rules so the local provider, the ask endpoint and the reply
 * loop apply the same ones.
 */
import { Option } from "effect"
import type { EscalationRule, ProhibitedPhrase } from "../agents/Agent.js"

/** Lower-cased words of a text (letters and digits of any script). */
export const words = (text: string): ReadonlyArray<string> => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** `needle` occurs in `haystack` as whole words, case-insensitively: "ass" is not in "assist". */
const containsWords = (haystack: ReadonlyArray<string>, needle: ReadonlyArray<string>): boolean => {
  if (needle.length === 0) return false
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer
    return true
  }
  return false
}

/** The first prohibited phrase the draft contains (case-insensitive, whole words), if any. */
export const prohibitedPhraseIn = (
  draft: string,
  phrases: ReadonlyArray<Pick<ProhibitedPhrase, "phrase">>
): Option.Option<string> => {
  const text = words(draft)
  return Option.fromNullishOr(phrases.find((p) => containsWords(text, words(p.phrase)))?.phrase)
}

/**
 * The local model's reading of an escalation rule: the rule matches when the message contains any phrase of the
 * rule written in double quotes, or else every word of four letters or more of the rule (case-insensitive). A
 * rule with neither never matches locally.
 */
export const ruleMatches = (message: string, rule: string): boolean => {
  const text = words(message)
  const quoted = [...rule.matchAll(/"([^"]+)"/g)].map((m) => words(m[1]!))
  if (quoted.some((phrase) => containsWords(text, phrase))) return true
  const required = words(rule.replace(/"[^"]*"/g, " ")).filter((w) => w.length >= 4)
  if (required.length === 0) return false
  const present = new Set(text)
  return required.every((w) => present.has(w))
}

/** The first rule of the channel that matches the message: escalation rules apply per channel. */
export const matchingRule = (
  message: string,
  channel: string,
  rules: ReadonlyArray<EscalationRule>
): Option.Option<EscalationRule> =>
  Option.fromNullishOr(rules.find((r) => r.channel === channel && ruleMatches(message, r.rule)))
