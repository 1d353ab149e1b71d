/**
 * The workspace, agent, content and customer conversation that storage's reply tests run on, for the engine's
 * reply worker and the model providers: one fixture, kept with storage's tests (it reads storage's reply jobs),
 * which the engine's tests reach through a project reference, as the engine reaches storage.
 */
export { as, makeWorkspace } from "../../storage/test/conformance/Harness.js"
export { fixture, REFUNDS } from "../../storage/test/replies/Fixture.js"
