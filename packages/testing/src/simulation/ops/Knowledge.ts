/**
 * Training data and knowledge-base articles with translations: created, revised and deleted;
 * refused for the wrong type (400), a url item outside URL processing (422), a missing field (422), an agent of
 * another workspace (400), no valid URL (422); another workspace's item or article is a 404 and stays as it was.
 * The training worker moves items from queued to completed in the background, with their events.
 */
import {
  CreateArticle,
  CreateTrainingData,
  KnowledgeBase,
  ProcessUrls,
  PutTranslation,
  Training,
  TranslationInput,
  UpdateArticle,
  UpdateTrainingData
} from "@support-engine/core"
import { Effect } from "effect"
import { type Space, touch } from "../Model.js"
import { ARTICLE } from "../Questions.js"
import { type AnyCall, foreignAgent, type Op, otherSpace, refused, type Sim, valid } from "./Op.js"

export const training: Op = {
  name: "training",
  weight: 12,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      const choice = yield* rng.int(0, 11)
      const create = (input: CreateTrainingData) => Effect.flatMap(Training, (t) => t.create(input))
      switch (choice) {
        case 0:
        case 1:
        case 2: {
          const kind = yield* rng.pick(["text", "qa", "file"] as const)
          const input = kind === "text"
            ? new CreateTrainingData({ type: "text", title: "Hours", content: ARTICLE.content })
            : kind === "qa"
            ? new CreateTrainingData({ type: "qa", question: "When do you open?", answer: "At nine." })
            : new CreateTrainingData({ type: "file", source: `https://files.example.test/f${++sim.world.serial}.pdf` })
          const item = yield* valid(sim, space, `training ${kind}`, create(input))
          space.training.push(item.id)
          touch(sim.world, space, "training")
          return `training ${space.index} ${kind} ${item.id}`
        }
        case 3: {
          const n = ++sim.world.serial
          const items = yield* valid(
            sim,
            space,
            "training urls",
            Effect.flatMap(Training, (t) =>
              t.processUrls(new ProcessUrls({ urls: [`https://docs.example.test/${n}`, "not a url"] })))
          )
          for (const item of items) {
            space.training.push(item.id)
          }
          touch(sim.world, space, "training")
          return `training ${space.index} urls ${items.length}`
        }
        case 4:
          return yield* refused(
            sim,
            space,
            "training of type url",
            "UrlDiscoveryRequired",
            create(new CreateTrainingData({ type: "url", source: "https://x.example.test/" }))
          )
        case 5:
          return yield* refused(
            sim,
            space,
            "training of an unknown type",
            "InvalidType",
            create(new CreateTrainingData({ type: "pdf", content: "x" }))
          )
        case 6:
          return yield* refused(
            sim,
            space,
            "qa training without an answer",
            "ValidationError",
            create(new CreateTrainingData({ type: "qa", question: "Why?" }))
          )
        case 7:
          return yield* refused(
            sim,
            space,
            "training urls without a valid one",
            "NoUrlsProvided",
            Effect.flatMap(Training, (t) =>
              t.processUrls(new ProcessUrls({ urls: ["ftp://x", "nothing"] })))
          )
        case 8: {
          const foreign = yield* foreignAgent(sim, space, rng)
          if (foreign === undefined) return undefined
          return yield* refused(
            sim,
            space,
            "training for another workspace's agent",
            "InvalidAgent",
            create(new CreateTrainingData({ type: "text", content: "x", agent_ids: [foreign] }))
          )
        }
        case 9: {
          if (space.training.length === 0) return undefined
          const id = yield* rng.pick(space.training)
          if (yield* rng.chance(0.5)) {
            yield* valid(
              sim,
              space,
              "training update",
              Effect.flatMap(Training, (t) => t.update(id, new UpdateTrainingData({ title: `t${choice}` })))
            )
            return `training update ${id}`
          }
          yield* valid(sim, space, "training delete", Effect.flatMap(Training, (t) => t.delete(id)))
          space.training.splice(space.training.indexOf(id), 1)
          touch(sim.world, space, "training")
          return `training delete ${id}`
        }
        default: {
          const other = otherSpace(sim, space, (s) => s.training)
          if (other === undefined) return undefined
          const foreign = yield* rng.pick(other.training)
          const calls: ReadonlyArray<readonly [string, AnyCall]> = [
            ["get", Effect.flatMap(Training, (t) => t.get(foreign))],
            ["update", Effect.flatMap(Training, (t) => t.update(foreign, new UpdateTrainingData({ title: "x" })))],
            ["delete", Effect.flatMap(Training, (t) => t.delete(foreign))]
          ]
          const [verb, call] = yield* rng.pick(calls)
          return yield* refused(sim, space, `cross-workspace training ${verb}`, "NotFound", call, {
            owner: other,
            read: Effect.flatMap(Training, (t) => t.get(foreign))
          })
        }
      }
    })
}

/** An article with the one English translation the questions are asked about, added to the model. */
export const createArticle = (sim: Sim, space: Space, status: "draft" | "published") =>
  Effect.gen(function*() {
    const created = yield* valid(
      sim,
      space,
      "article",
      Effect.flatMap(KnowledgeBase, (kb) =>
        kb.create(
          new CreateArticle({
            status,
            translations: [new TranslationInput({ locale: "en", title: ARTICLE.title, content: ARTICLE.content })]
          })
        ))
    )
    space.articles.push(created.id)
    touch(sim.world, space, "articles")
    return created
  })

export const article: Op = {
  name: "article",
  weight: 8,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      const choice = yield* rng.int(0, 7)
      if (choice <= 1 || space.articles.length === 0) {
        const created = yield* createArticle(sim, space, choice === 0 ? "draft" : "published")
        return `article ${space.index} ${created.id}`
      }
      const id = yield* rng.pick(space.articles)
      switch (choice) {
        case 2: {
          const locale = yield* rng.pick(["en", "pt", "de"])
          yield* valid(
            sim,
            space,
            "article translation",
            Effect.flatMap(KnowledgeBase, (kb) =>
              kb.putTranslation(
                id,
                locale,
                new PutTranslation({ title: `${ARTICLE.title} (${locale})`, content: ARTICLE.content })
              ))
          )
          return `article ${id} translation ${locale}`
        }
        case 3: {
          const status = yield* rng.pick(["draft", "published"] as const)
          yield* valid(
            sim,
            space,
            "article status",
            Effect.flatMap(KnowledgeBase, (kb) => kb.update(id, new UpdateArticle({ status })))
          )
          return `article ${id} ${status}`
        }
        case 4: {
          yield* valid(
            sim,
            space,
            "article delete",
            Effect.flatMap(KnowledgeBase, (kb) => kb.delete(id))
          )
          space.articles.splice(space.articles.indexOf(id), 1)
          touch(sim.world, space, "articles")
          return `article delete ${id}`
        }
        default: {
          const other = otherSpace(sim, space, (s) => s.articles)
          if (other === undefined) return undefined
          const foreign = yield* rng.pick(other.articles)
          const calls: ReadonlyArray<readonly [string, AnyCall]> = [
            ["get", Effect.flatMap(KnowledgeBase, (kb) => kb.get(foreign))],
            [
              "status",
              Effect.flatMap(KnowledgeBase, (kb) => kb.update(foreign, new UpdateArticle({ status: "draft" })))
            ],
            [
              "translation",
              Effect.flatMap(
                KnowledgeBase,
                (kb) => kb.putTranslation(foreign, "fr", new PutTranslation({ title: "x" }))
              )
            ],
            ["delete", Effect.flatMap(KnowledgeBase, (kb) => kb.delete(foreign))]
          ]
          const [verb, call] = yield* rng.pick(calls)
          return yield* refused(sim, space, `cross-workspace article ${verb}`, "NotFound", call, {
            owner: other,
            read: Effect.flatMap(KnowledgeBase, (kb) => kb.get(foreign))
          })
        }
      }
    })
}
