/**
 * Branded UUID identifiers. Any UUID is accepted on input; the engine generates UUIDv7.
 */
import { Schema } from "effect"

/**
 * Any UUID, as text: 32 hex digits in the 8-4-4-4-12 groups, whatever the version and variant digits (Effect 3's
 * `Schema.UUID`). Effect 4's `isUUID()` also requires an RFC 9562 version (1-8) and variant (8-b), which would refuse
 * ids other systems made that this engine always accepted; its JSON Schema keeps Effect 3's `pattern` and `format`.
 */
export const Uuid = Schema.String.check(
  Schema.isGUID({
    expected: "a UUID",
    toJsonSchema: () => ({
      pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
      format: "uuid"
    })
  })
)

export const WorkspaceId = Uuid.pipe(Schema.brand("WorkspaceId"))
export type WorkspaceId = typeof WorkspaceId.Type
export const OrganizationId = Uuid.pipe(Schema.brand("OrganizationId"))
export type OrganizationId = typeof OrganizationId.Type
export const UserId = Uuid.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type
export const ApiTokenId = Uuid.pipe(Schema.brand("ApiTokenId"))
export type ApiTokenId = typeof ApiTokenId.Type
export const AgentId = Uuid.pipe(Schema.brand("AgentId"))
export type AgentId = typeof AgentId.Type
export const ProhibitedPhraseId = Uuid.pipe(Schema.brand("ProhibitedPhraseId"))
export type ProhibitedPhraseId = typeof ProhibitedPhraseId.Type
export const EscalationRuleId = Uuid.pipe(Schema.brand("EscalationRuleId"))
export type EscalationRuleId = typeof EscalationRuleId.Type
export const CustomerId = Uuid.pipe(Schema.brand("CustomerId"))
export type CustomerId = typeof CustomerId.Type
export const CompanyId = Uuid.pipe(Schema.brand("CompanyId"))
export type CompanyId = typeof CompanyId.Type
export const ConversationId = Uuid.pipe(Schema.brand("ConversationId"))
export type ConversationId = typeof ConversationId.Type
export const MessageId = Uuid.pipe(Schema.brand("MessageId"))
export type MessageId = typeof MessageId.Type
export const TrainingDataId = Uuid.pipe(Schema.brand("TrainingDataId"))
export type TrainingDataId = typeof TrainingDataId.Type
export const TrainingFolderId = Uuid.pipe(Schema.brand("TrainingFolderId"))
export type TrainingFolderId = typeof TrainingFolderId.Type
export const UrlPageId = Uuid.pipe(Schema.brand("UrlPageId"))
export type UrlPageId = typeof UrlPageId.Type
export const ArticleId = Uuid.pipe(Schema.brand("ArticleId"))
export type ArticleId = typeof ArticleId.Type
export const ArticleCategoryId = Uuid.pipe(Schema.brand("ArticleCategoryId"))
export type ArticleCategoryId = typeof ArticleCategoryId.Type
export const RevisionId = Uuid.pipe(Schema.brand("RevisionId"))
export type RevisionId = typeof RevisionId.Type
export const EventId = Uuid.pipe(Schema.brand("EventId"))
export type EventId = typeof EventId.Type
export const WebhookId = Uuid.pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type
export const DeliveryId = Uuid.pipe(Schema.brand("DeliveryId"))
export type DeliveryId = typeof DeliveryId.Type

export const ReplyJobId = Uuid.pipe(Schema.brand("ReplyJobId"))
export type ReplyJobId = typeof ReplyJobId.Type
