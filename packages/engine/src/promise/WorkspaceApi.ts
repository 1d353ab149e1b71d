/**
 * The workspace-scoped part of the Promise API: every service a token reaches over HTTP, with the same
 * decoding, checks and answers. Inputs are typed as the request schemas' encoded (JSON) form; outputs are the JSON
 * the HTTP API returns.
 */
import {
  Agent,
  AgentAsk,
  AgentId,
  Agents,
  Article,
  ArticleId,
  AskAgent,
  AskAnswer,
  Companies,
  Company,
  CompanyId,
  Conversation,
  ConversationId,
  Conversations,
  ConversationSummary,
  Copilot,
  CreateAgent,
  CreateArticle,
  CreateCompany,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CreateTrainingData,
  Customer,
  CustomerErasure,
  CustomerExport,
  CustomerExports,
  CustomerId,
  Customers,
  decodeRequest,
  Event,
  Events,
  KnowledgeBase,
  ListAgents,
  ListArticles,
  ListCompanies,
  ListConversations,
  ListCustomers,
  ListEvents,
  ListMessages,
  ListRevisions,
  ListTrainingData,
  Message,
  MessageId,
  Messages,
  type PrincipalShape,
  ProcessUrls,
  PutTranslation,
  ResyncStarted,
  Revision,
  RevisionId,
  SuggestedReply,
  SuggestReply,
  SummarizeConversation,
  TokenInfo,
  Tokens,
  Training,
  TrainingDataId,
  TrainingDataItem,
  UpdateAgent,
  UpdateArticle,
  UpdateCompany,
  UpdateConversation,
  UpdateCustomer,
  UpdateTrainingData,
  UrlExistsQuery
} from "@support-engine/core"
import { Effect, Schema } from "effect"
import { abilityCheck } from "./Abilities.js"
import { asPrincipal, crud, decodeId, encode, keyed, type KeyOptions, page } from "./Runner.js"
import { webhooksApi } from "./WebhooksApi.js"

/** The workspace-scoped API. Every call runs as `principal`, through the same services and checks as HTTP. */
export const workspaceApi = (principal: PrincipalShape) => {
  const conversationId = decodeId(ConversationId)
  const messages = {
    /** `POST /conversations/{id}/messages`; `{ idempotencyKey }` makes a retry safe. */
    create: (conversation: string, input: typeof CreateMessage.Encoded, options?: KeyOptions) =>
      keyed(
        options,
        "POST",
        `/v1/conversations/${conversation}/messages`,
        input,
        201,
        Effect.flatMap(Messages, (s) =>
          Effect.flatMap(
            Effect.all([conversationId(conversation), decodeRequest(CreateMessage)(input)]),
            ([id, body]) => s.create(id, body)
          )).pipe(Effect.flatMap(encode(Message)))
      ),
    delete: (key: string) => Effect.flatMap(Messages, (s) => Effect.flatMap(decodeId(MessageId)(key), s.delete)),
    list: (query: typeof ListMessages.Encoded) =>
      Effect.flatMap(Messages, (s) => Effect.flatMap(decodeRequest(ListMessages)(query), s.list)).pipe(
        Effect.flatMap(encode(page(Message)))
      )
  }
  const webhooks = webhooksApi()
  const api = {
    agents: {
      ...crud(Agents, {
        id: AgentId,
        model: Agent,
        create: CreateAgent,
        update: UpdateAgent,
        list: ListAgents,
        path: "/v1/agents"
      }),
      /** `POST /agents/{id}/ask`: what the agent would answer, stored nowhere; the read ability suffices. */
      ask: (key: string, input: typeof AskAgent.Encoded) =>
        Effect.flatMap(AgentAsk, (s) =>
          Effect.flatMap(
            Effect.all([decodeId(AgentId)(key), decodeRequest(AskAgent)(input)]),
            ([id, body]) => s.ask(id, body)
          )).pipe(Effect.flatMap(encode(AskAnswer)))
    },
    companies: crud(Companies, {
      id: CompanyId,
      model: Company,
      create: CreateCompany,
      update: UpdateCompany,
      list: ListCompanies,
      path: "/v1/companies"
    }),
    customers: {
      ...crud(Customers, {
        id: CustomerId,
        model: Customer,
        create: CreateCustomer,
        update: UpdateCustomer,
        list: ListCustomers,
        path: "/v1/customers"
      }),
      /** `GET /customers/{id}/export`: the customer, their conversations and messages, oldest first. */
      export: (key: string) =>
        Effect.flatMap(CustomerExports, (s) => Effect.flatMap(decodeId(CustomerId)(key), s.export)).pipe(
          Effect.flatMap(encode(CustomerExport))
        ),
      /** `POST /customers/{id}/erase`: the customer and everything of theirs removed; what was removed, counted. */
      erase: (key: string) =>
        Effect.flatMap(Customers, (s) => Effect.flatMap(decodeId(CustomerId)(key), s.erase)).pipe(
          Effect.flatMap(encode(CustomerErasure))
        )
    },
    conversations: {
      ...crud(Conversations, {
        id: ConversationId,
        model: Conversation,
        create: CreateConversation,
        update: UpdateConversation,
        list: ListConversations,
        path: "/v1/conversations"
      }),
      /** `POST /conversations/{id}/suggest-reply`: a draft reply for a person to send; stores nothing. */
      suggestReply: (key: string, input: typeof SuggestReply.Encoded) =>
        Effect.flatMap(Copilot, (s) =>
          Effect.flatMap(
            Effect.all([conversationId(key), decodeRequest(SuggestReply)(input)]),
            ([id, body]) => s.suggestReply(id, body)
          )).pipe(Effect.flatMap(encode(SuggestedReply))),
      /** `POST /conversations/{id}/summarize`: `{ summary }`, at most 1,000 characters; stores nothing. */
      summarize: (key: string, input: typeof SummarizeConversation.Encoded) =>
        Effect.flatMap(Copilot, (s) =>
          Effect.flatMap(
            Effect.all([conversationId(key), decodeRequest(SummarizeConversation)(input)]),
            ([id, body]) => s.summarize(id, body)
          )).pipe(Effect.flatMap(encode(ConversationSummary)))
    },
    messages,
    training: {
      ...crud(Training, {
        id: TrainingDataId,
        model: TrainingDataItem,
        create: CreateTrainingData,
        update: UpdateTrainingData,
        list: ListTrainingData,
        path: "/v1/training-data"
      }),
      /** `POST /training-data/url/process`. */
      processUrls: (input: typeof ProcessUrls.Encoded) =>
        Effect.flatMap(Training, (s) => Effect.flatMap(decodeRequest(ProcessUrls)(input), s.processUrls)).pipe(
          Effect.flatMap(encode(Schema.Array(TrainingDataItem)))
        ),
      /** `POST /training-data/{id}/resync-now`. */
      resync: (key: string) =>
        Effect.flatMap(Training, (s) => Effect.flatMap(decodeId(TrainingDataId)(key), s.resync)).pipe(
          Effect.flatMap(encode(ResyncStarted))
        ),
      /** `GET /training-data/url/exists`. */
      urlExists: (query: typeof UrlExistsQuery.Encoded) =>
        Effect.flatMap(Training, (s) => Effect.flatMap(decodeRequest(UrlExistsQuery)(query), s.urlExists))
    },
    knowledgeBase: {
      ...crud(KnowledgeBase, {
        id: ArticleId,
        model: Article,
        create: CreateArticle,
        update: UpdateArticle,
        list: ListArticles,
        path: "/v1/kb-articles"
      }),
      putTranslation: (key: string, locale: string, input: typeof PutTranslation.Encoded) =>
        Effect.flatMap(KnowledgeBase, (s) =>
          Effect.flatMap(
            Effect.all([decodeId(ArticleId)(key), decodeRequest(PutTranslation)(input)]),
            ([id, body]) => s.putTranslation(id, locale, body)
          )).pipe(Effect.flatMap(encode(Article))),
      revisions: (key: string, query: typeof ListRevisions.Encoded = {}) =>
        Effect.flatMap(KnowledgeBase, (s) =>
          Effect.flatMap(
            Effect.all([decodeId(ArticleId)(key), decodeRequest(ListRevisions)(query)]),
            ([id, q]) => s.listRevisions(id, q)
          )).pipe(Effect.flatMap(encode(page(Revision)))),
      /** `POST /kb-articles/{id}/revisions/{revisionId}/restore`. */
      restore: (key: string, revision: string) =>
        Effect.flatMap(KnowledgeBase, (s) =>
          Effect.flatMap(
            Effect.all([decodeId(ArticleId)(key), decodeId(RevisionId)(revision)]),
            ([id, r]) => s.restore(id, r)
          )).pipe(Effect.flatMap(encode(Article)))
    },
    webhooks,
    /** `GET /token`: the token this API was opened with; any valid token may read itself. */
    token: {
      get: () => Effect.flatMap(Tokens, (s) => s.current()).pipe(Effect.flatMap(encode(TokenInfo)))
    },
    events: {
      list: (query: typeof ListEvents.Encoded = {}) =>
        Effect.flatMap(Events, (s) => Effect.flatMap(decodeRequest(ListEvents)(query), s.list)).pipe(
          Effect.flatMap(encode(page(Event)))
        )
    }
  }
  return { principal, ...asPrincipal(api, principal, abilityCheck) }
}
