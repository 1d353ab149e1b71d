export * from "./Options.js"
export { simulate } from "./Run.js"
export * from "./Shrink.js"
