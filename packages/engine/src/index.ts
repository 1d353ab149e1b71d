export { AnswerModelLive } from "./ai/AnswerModelLive.js"
export * from "./DatabaseUrl.js"
export {
  createSupportEngine,
  type FacadeServices,
  type KeyOptions,
  makeRunner,
  makeSupportEngine,
  type SupportEngine,
  type WorkspaceApi,
  type WorkspaceSessionOptions
} from "./promise/PromiseApi.js"
export * from "./SupportEngine.js"
