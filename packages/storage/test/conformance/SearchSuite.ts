import { assert, describe, it } from "@effect/vitest"
import {
  Conversations,
  CreateArticle,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  Customers,
  KnowledgeBase,
  ListArticles,
  ListConversations,
  ListCustomers,
  Messages,
  PutTranslation,
  TranslationInput,
  UpdateConversation,
  UpdateCustomer,
  ValidationError
} from "@support-engine/core"
import { Effect } from "effect"
import { type Adapter, as, makeWorkspace, provideEngine } from "./Harness.js"

const fieldsOf = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Effect.flip(self),
    (e) => e instanceof ValidationError ? Effect.succeed(Object.keys(e.errors)) : Effect.die(new Error(String(e)))
  )

/** `cafe`, `café` and `CAFÉ` find the same rows, `expected`: diacritics and case folded in the text and in `q`. */
const foldsCafe = <E, R>(
  find: (q: string) => Effect.Effect<ReadonlyArray<string>, E, R>,
  expected: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    for (const q of ["cafe", "café", "CAFÉ"]) assert.deepStrictEqual(yield* find(q), [...expected].sort(), `q=${q}`)
  })

/** Search with `q` (D52) on each database: prefix words, ranking, index kept with every write, workspace scope. */
export const searchSuite = (adapter: Adapter) =>
  describe(`Search (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("customers by name, email and phone: every word a prefix, case-insensitive, kept on update/delete", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const other = yield* makeWorkspace()
        const customers = yield* Customers
        const find = (q: string) =>
          Effect.map(customers.list(new ListCustomers({ q })), (page) => page.data.map((c) => c.first_name).sort())
        yield* customers.create(new CreateCustomer({ first_name: "Ada", email: "ignored@example.test" })).pipe(
          as(other.principal)
        )
        yield* Effect.gen(function*() {
          const ada = yield* customers.create(
            new CreateCustomer({
              first_name: "Ada",
              last_name: "Lovelace",
              email: "ada@analytical.example",
              phone: "+31 6 1234 5678"
            })
          )
          yield* customers.create(new CreateCustomer({ first_name: "Adam", last_name: "Smith", email: "a@s.test" }))
          yield* customers.create(new CreateCustomer({ first_name: "Grace", email: "grace@navy.example" }))
          assert.deepStrictEqual(yield* find("ada"), ["Ada", "Adam"], "prefix, and not the other workspace's Ada")
          assert.deepStrictEqual(yield* find("ADA love"), ["Ada"], "every word must match")
          assert.deepStrictEqual(yield* find("grace@navy"), ["Grace"])
          assert.deepStrictEqual(yield* find("ANALYTICAL"), ["Ada"])
          assert.deepStrictEqual(yield* find("31612345"), ["Ada"], "the phone's digits alone")
          assert.deepStrictEqual(yield* find("1234 5678"), ["Ada"])
          assert.deepStrictEqual(yield* find("nobody"), [])
          // Query syntax cannot leak: quotes, operators and stars only separate words.
          for (const q of [`"ada`, "ada*", "NEAR(ada love)", "ada OR grace", "ada) DROP TABLE customers; --"]) {
            yield* customers.list(new ListCustomers({ q }))
          }
          assert.deepStrictEqual(yield* find("ada OR grace"), [], "OR is a word, not an operator")

          yield* customers.update(ada.id, new UpdateCustomer({ first_name: "Augusta" }))
          assert.deepStrictEqual(yield* find("augusta lovelace"), ["Augusta"])
          assert.deepStrictEqual(yield* find("ada lovelace"), ["Augusta"], "the email still says ada")
          assert.deepStrictEqual(yield* find("adam"), ["Adam"])
          yield* customers.delete(ada.id)
          assert.deepStrictEqual(yield* find("lovelace"), [])

          const page = yield* customers.list(new ListCustomers({ q: "a", per_page: 1 }))
          assert.strictEqual(page.meta.total, 1, "Adam (a@s.test); grace@navy.example has no word starting with a")
          assert.strictEqual(page.meta.next_cursor, null, "search results are paged by page number")
          assert.deepStrictEqual(yield* fieldsOf(customers.list(new ListCustomers({ q: "!!" }))), ["q"])
          assert.deepStrictEqual(
            yield* fieldsOf(customers.list(new ListCustomers({ q: "a", cursor: "x" }))),
            ["q"]
          )
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("conversations by subject or message content; a deleted message no longer matches", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const [customers, conversations, messages] = [yield* Customers, yield* Conversations, yield* Messages]
        yield* Effect.gen(function*() {
          const customer = yield* customers.create(new CreateCustomer({ email: "c@example.test" }))
          const bySubject = yield* conversations.create(
            new CreateConversation({ customer_id: customer.id, subject: "Refund for order 1042" })
          )
          const byMessage = yield* conversations.create(
            new CreateConversation({ customer_id: customer.id, subject: "Question" })
          )
          const message = yield* messages.create(
            byMessage.id,
            new CreateMessage({ sender_type: "customer", sender_id: customer.id, content: "I want a refund, please" })
          )
          yield* conversations.create(new CreateConversation({ customer_id: customer.id, subject: "Shipping" }))
          const find = (q: string, extra: Partial<ConstructorParameters<typeof ListConversations>[0]> = {}) =>
            Effect.map(
              conversations.list(new ListConversations({ q, ...extra })),
              (page) => page.data.map((c) => c.id).sort()
            )
          assert.deepStrictEqual(yield* find("refund"), [bySubject.id, byMessage.id].sort())
          assert.deepStrictEqual(yield* find("1042"), [bySubject.id])
          assert.deepStrictEqual(yield* find("refund", { status: "closed" }), [], "filters still apply")
          yield* conversations.update(bySubject.id, new UpdateConversation({ subject: "Done" }))
          assert.deepStrictEqual(yield* find("refund"), [byMessage.id])
          yield* messages.delete(message.id)
          assert.deepStrictEqual(yield* find("refund"), [])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("customers: diacritics are folded on both databases, in the text and in the query (cafe finds Café)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const customers = yield* Customers
        yield* Effect.gen(function*() {
          const accented = yield* customers.create(new CreateCustomer({ first_name: "Café", last_name: "Brûlé" }))
          const plain = yield* customers.create(new CreateCustomer({ first_name: "Cafe", last_name: "Smith" }))
          const find = (q: string) =>
            Effect.map(customers.list(new ListCustomers({ q })), (page) => page.data.map((c) => c.id).sort())
          yield* foldsCafe(find, [accented.id, plain.id])
          assert.deepStrictEqual(yield* find("brûl"), [accented.id], "a folded prefix")
          yield* customers.update(plain.id, new UpdateCustomer({ last_name: "Façade" }))
          assert.deepStrictEqual(yield* find("facade"), [plain.id], "kept on update")
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("conversations: diacritics are folded in the subject and in message content (cafe finds Café)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const [customers, conversations, messages] = [yield* Customers, yield* Conversations, yield* Messages]
        yield* Effect.gen(function*() {
          const customer = yield* customers.create(new CreateCustomer({ email: "c@example.test" }))
          const conversation = (subject: string) =>
            conversations.create(new CreateConversation({ customer_id: customer.id, subject }))
          const accented = yield* conversation("Café au lait")
          const plain = yield* conversation("Cafe opening hours")
          const byMessage = yield* conversation("Question")
          const message = yield* messages.create(
            byMessage.id,
            new CreateMessage({ sender_type: "customer", sender_id: customer.id, content: "The CAFÉ crème brûlée" })
          )
          const find = (q: string) =>
            Effect.map(conversations.list(new ListConversations({ q })), (page) => page.data.map((c) => c.id).sort())
          yield* foldsCafe(find, [accented.id, plain.id, byMessage.id])
          assert.deepStrictEqual(yield* find("creme brulee"), [byMessage.id])
          assert.deepStrictEqual(yield* find("brûl"), [byMessage.id], "a folded prefix")
          assert.deepStrictEqual(yield* find("au lai"), [accented.id])
          yield* conversations.update(plain.id, new UpdateConversation({ subject: "Façade" }))
          assert.deepStrictEqual(yield* find("facade"), [plain.id], "kept on update")
          yield* messages.delete(message.id)
          assert.deepStrictEqual(yield* find("creme"), [])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("articles by title, excerpt or content of any translation, the most relevant first", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        yield* Effect.gen(function*() {
          const article = (title: string, content: string, extra: Partial<typeof TranslationInput.Type> = {}) =>
            kb.create(
              new CreateArticle({ translations: [new TranslationInput({ locale: "en", title, content, ...extra })] })
            )
          const once = yield* article("Shipping", "Parcels ship in two days. Returns accepted.")
          const often = yield* article("Returns and returns policy", "Returns: how returns work, returns again.")
          const translated = yield* kb.create(
            new CreateArticle({
              translations: [
                new TranslationInput({ locale: "en", title: "Billing", content: "Invoices" }),
                new TranslationInput({ locale: "nl", title: "Facturen", content: "Retourzending", excerpt: "kort" })
              ]
            })
          )
          const find = (q: string) => Effect.map(kb.list(new ListArticles({ q })), (page) => page.data.map((a) => a.id))
          assert.deepStrictEqual(yield* find("returns"), [often.id, once.id], "ranked: more mentions first")
          assert.deepStrictEqual(yield* find("retour"), [translated.id], "any translation")
          assert.deepStrictEqual(yield* find("kort"), [translated.id], "the excerpt")
          yield* kb.putTranslation(translated.id, "nl", new PutTranslation({ content: "Betalingen" }))
          assert.deepStrictEqual(yield* find("retourzending"), [])
          assert.deepStrictEqual(yield* find("betalingen"), [translated.id])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("articles: diacritics are folded on both databases, in the text and in the query (cafe finds Café)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        yield* Effect.gen(function*() {
          const accented = yield* kb.create(
            new CreateArticle({
              translations: [new TranslationInput({ locale: "fr", title: "Café", content: "Crème brûlée" })]
            })
          )
          const plain = yield* kb.create(
            new CreateArticle({
              translations: [new TranslationInput({ locale: "en", title: "Cafe", content: "Menu" })]
            })
          )
          const find = (q: string) =>
            Effect.map(kb.list(new ListArticles({ q })), (page) => page.data.map((a) => a.id).sort())
          yield* foldsCafe(find, [accented.id, plain.id])
          assert.deepStrictEqual(yield* find("creme brulee"), [accented.id])
          assert.deepStrictEqual(yield* find("brûl"), [accented.id], "a folded prefix")
          yield* kb.putTranslation(plain.id, "en", new PutTranslation({ content: "Façade" }))
          assert.deepStrictEqual(yield* find("facade"), [plain.id], "kept on update")
        }).pipe(as(principal))
      }).pipe(provide))
  })
