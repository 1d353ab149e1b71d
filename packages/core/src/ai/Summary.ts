/**
 * Conversation summaries, for the person who takes a conversation over: the customer's first request, what
 * was answered and what is still open. The local model's summary is extractive (quoted from the messages, so it is
 * deterministic); a remote model writes one from the same transcript.
 */
import { Effect, Schema } from "effect"
import { MessageRepo } from "../conversations/ConversationRepo.js"
import type { Message } from "../conversations/Message.js"
import type { ConversationId, WorkspaceId } from "../shared/Ids.js"
import { trimTo } from "./AnswerModel.js"

/** The longest summary, in characters. */
export const MAX_SUMMARY_LENGTH = 1000
/** Characters quoted per part of an extractive summary: three parts and their labels stay under the maximum. */
const PART = 300
/** Public messages of a conversation read for a transcript, newest first (plus its first customer message). */
const TRANSCRIPT_MESSAGES = 50

/** One public message of a conversation, as a summary or a model reads it. */
export interface TranscriptLine {
  readonly role: "customer" | "agent"
  readonly content: string
}

/** `POST /conversations/{id}/summarize`: `{"summary"}`, at most 1,000 characters, `""` for an empty conversation. */
export class ConversationSummary extends Schema.Class<ConversationSummary>("ConversationSummary")({
  summary: Schema.String
}) {}

/** Customer, person and agent messages that the customer saw; internal notes and system messages are left out. */
const isPublic = (m: Message): boolean => !m.is_internal && m.sender_type !== "system"

/** The line of a message: a person's or an agent's reply is the support side. */
export const toLine = (m: Message): TranscriptLine => ({
  role: m.sender_type === "customer" ? "customer" : "agent",
  content: m.content
})

/**
 * The conversation's public messages, oldest first: its latest ones, and its first customer message even when the
 * conversation is longer than that (the request a summary starts from).
 */
export const readTranscript = Effect.fn("Summary.readTranscript")(
  function*(workspaceId: WorkspaceId, conversationId: ConversationId) {
    const messages = yield* MessageRepo
    const recent = yield* messages.list(workspaceId, { conversation_id: conversationId }, {
      limit: TRANSCRIPT_MESSAGES,
      offset: 0
    })
    const lines = recent.items.filter(isPublic).reverse()
    if (recent.total <= recent.items.length) return lines
    // Older messages exist: the oldest customer message is the last of the customer's messages, newest first.
    const counted = yield* messages.list(workspaceId, { conversation_id: conversationId, sender_type: "customer" }, {
      limit: 1,
      offset: 0
    })
    if (counted.total === 0) return lines
    const oldest = yield* messages.list(workspaceId, { conversation_id: conversationId, sender_type: "customer" }, {
      limit: 1,
      offset: counted.total - 1,
      count: false
    })
    const first = oldest.items[0]
    return first === undefined || lines.some((m) => m.id === first.id) ? lines : [first, ...lines]
  }
)

/** The index of the last element that passes, else -1. */
const lastIndex = <A>(items: ReadonlyArray<A>, pass: (a: A, i: number) => boolean): number => {
  for (let i = items.length - 1; i >= 0; i--) if (pass(items[i]!, i)) return i
  return -1
}

/**
 * The extractive summary: the customer's first message, the latest reply, and the latest customer message not
 * answered since (or "nothing"). Each part is quoted up to 300 characters; no public message gives `""`.
 */
export const extractiveSummary = (transcript: ReadonlyArray<TranscriptLine>): string => {
  if (transcript.length === 0) return ""
  const quote = (text: string) => trimTo(text, PART)
  const firstIndex = transcript.findIndex((l) => l.role === "customer")
  const replyIndex = lastIndex(transcript, (l) => l.role === "agent")
  const openIndex = lastIndex(transcript, (l, i) => l.role === "customer" && i > replyIndex)
  const parts: Array<string> = []
  if (firstIndex >= 0) parts.push(`Customer's request: ${quote(transcript[firstIndex]!.content)}`)
  if (replyIndex >= 0) parts.push(`Answered: ${quote(transcript[replyIndex]!.content)}`)
  if (firstIndex >= 0) {
    parts.push(
      openIndex < 0
        ? "Still open: nothing; the last message is a reply."
        : openIndex === firstIndex
        ? "Still open: the request above."
        : `Still open: ${quote(transcript[openIndex]!.content)}`
    )
  }
  const text = parts.join("\n")
  return text.length <= MAX_SUMMARY_LENGTH ? text : trimTo(text, MAX_SUMMARY_LENGTH)
}
