export * from "./Advance.js"
export * from "./PromiseTestEngine.js"
export * from "./RecordingReceiver.js"
export * from "./TestEngine.js"
