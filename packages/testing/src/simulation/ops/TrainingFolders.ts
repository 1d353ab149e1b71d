/**
 * Training folders (core's `Training.createFolder`, `listFolders`; the contract names them only through an item's
 * `training_folder_id`): created, and training items and URL items filed in them. Refused: a folder with no name or
 * a name over 255 characters (422), and an item or URL batch filed in another workspace's folder (422 on
 * `training_folder_id`), each writing nothing. The folder list is checked against the model after every change and
 * in every full check (invariants/Lists.ts, `checkFolders`).
 */
import {
  CreateTrainingData,
  CreateTrainingFolder,
  decodeRequest,
  ProcessUrls,
  Training,
  type TrainingFolderId
} from "@support-engine/core"
import { Effect } from "effect"
import { checkFolders } from "../invariants/Lists.js"
import { type Space, touch } from "../Model.js"
import { ARTICLE } from "../Questions.js"
import { type AnyCall, type Op, otherSpace, refused, type Sim, valid } from "./Op.js"

const listFolders = Effect.flatMap(Training, (t) => t.listFolders())

const fileItem = (sim: Sim, space: Space, folder: TrainingFolderId, urls: boolean) =>
  Effect.gen(function*() {
    if (urls) {
      const n = ++sim.world.serial
      const items = yield* valid(
        sim,
        space,
        "training urls in a folder",
        Effect.flatMap(Training, (t) =>
          t.processUrls(new ProcessUrls({ urls: [`https://docs.example.test/f${n}`], training_folder_id: folder })))
      )
      space.training.push(...items.map((i) =>
        i.id
      ))
      touch(sim.world, space, "training")
      return `training ${space.index} urls ${items.length} in ${folder}`
    }
    const item = yield* valid(
      sim,
      space,
      "training in a folder",
      Effect.flatMap(Training, (t) =>
        t.create(new CreateTrainingData({ type: "text", content: ARTICLE.content, training_folder_id: folder })))
    )
    if (item.training_folder_id !== folder) {
      return yield* Effect.die(new Error("a training item keeps the folder it was filed in"))
    }
    space.training.push(item.id)
    touch(sim.world, space, "training")
    return `training ${space.index} ${item.id} in ${folder}`
  })

export const trainingFolder: Op = {
  name: "training folder",
  weight: 4,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      const choice = yield* rng.int(0, 8)
      const probe = { owner: space, read: listFolders }
      if (choice <= 1 || (choice <= 4 && space.folders.length === 0)) {
        const folder = yield* valid(
          sim,
          space,
          "training folder",
          Effect.flatMap(Training, (t) =>
            t.createFolder(new CreateTrainingFolder({ name: `Folder ${++sim.world.serial}` })))
        )
        space.folders.push(folder.id)
        yield* checkFolders(sim, space)
        return `training folder ${space.index} ${folder.id}`
      }
      if (choice <= 4) {
        return yield* fileItem(sim, space, yield* rng.pick(space.folders), choice === 4)
      }
      if (choice === 5) {
        const name = (yield* rng.chance(0.5)) ? "" : "f".repeat(256)
        return yield* refused(
          sim,
          space,
          `a training folder named ${name.length === 0 ? "nothing" : "with 256 characters"}`,
          "ValidationError",
          Effect.flatMap(
            decodeRequest(CreateTrainingFolder)({ name }),
            (input) =>
              Effect.flatMap(Training, (t) => t.createFolder(input))
          ),
          probe
        )
      }
      const other = otherSpace(sim, space, (s) => s.folders)
      if (other === undefined) return undefined
      const foreign = yield* rng.pick(other.folders)
      const call: AnyCall = choice === 6
        ? Effect.flatMap(Training, (t) =>
          t.create(
            new CreateTrainingData({ type: "qa", question: "Why?", answer: "So.", training_folder_id: foreign })
          ))
        : Effect.flatMap(Training, (t) =>
          t.processUrls(new ProcessUrls({ urls: ["https://docs.example.test/x"], training_folder_id: foreign })))
      return yield* refused(
        sim,
        space,
        `training ${choice === 6 ? "item" : "urls"} in another workspace's folder`,
        "ValidationError",
        call,
        { owner: other, read: listFolders }
      )
    })
}
