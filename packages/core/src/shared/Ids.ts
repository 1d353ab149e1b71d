/**
 * Branded UUID identifiers (D5). Any UUID is accepted on input; the engine generates UUIDv7.
 */
import { Schema } from "effect"

const uuid = <const B extends string>(brand: B) => Schema.UUID.pipe(Schema.brand(brand))

export const WorkspaceId = uuid("WorkspaceId")
export type WorkspaceId = typeof WorkspaceId.Type
export const OrganizationId = uuid("OrganizationId")
export type OrganizationId = typeof OrganizationId.Type
export const UserId = uuid("UserId")
export type UserId = typeof UserId.Type
export const ApiTokenId = uuid("ApiTokenId")
export type ApiTokenId = typeof ApiTokenId.Type
export const AgentId = uuid("AgentId")
export type AgentId = typeof AgentId.Type
export const ProhibitedPhraseId = uuid("ProhibitedPhraseId")
export type ProhibitedPhraseId = typeof ProhibitedPhraseId.Type
export const EscalationRuleId = uuid("EscalationRuleId")
export type EscalationRuleId = typeof EscalationRuleId.Type
export const CustomerId = uuid("CustomerId")
export type CustomerId = typeof CustomerId.Type
export const CompanyId = uuid("CompanyId")
export type CompanyId = typeof CompanyId.Type
export const ConversationId = uuid("ConversationId")
export type ConversationId = typeof ConversationId.Type
export const MessageId = uuid("MessageId")
export type MessageId = typeof MessageId.Type
export const TrainingDataId = uuid("TrainingDataId")
export type TrainingDataId = typeof TrainingDataId.Type
export const TrainingFolderId = uuid("TrainingFolderId")
export type TrainingFolderId = typeof TrainingFolderId.Type
export const UrlPageId = uuid("UrlPageId")
export type UrlPageId = typeof UrlPageId.Type
export const ArticleId = uuid("ArticleId")
export type ArticleId = typeof ArticleId.Type
export const ArticleCategoryId = uuid("ArticleCategoryId")
export type ArticleCategoryId = typeof ArticleCategoryId.Type
export const RevisionId = uuid("RevisionId")
export type RevisionId = typeof RevisionId.Type
export const EventId = uuid("EventId")
export type EventId = typeof EventId.Type
export const WebhookId = uuid("WebhookId")
export type WebhookId = typeof WebhookId.Type
export const DeliveryId = uuid("DeliveryId")
export type DeliveryId = typeof DeliveryId.Type

export const ReplyJobId = uuid("ReplyJobId")
export type ReplyJobId = typeof ReplyJobId.Type
