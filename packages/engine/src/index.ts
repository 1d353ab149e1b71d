export type { SupportEngine, WorkspaceApi, WorkspaceSessionOptions } from "@support-engine/storage/Facade"
export * from "./SupportEngine.js"
