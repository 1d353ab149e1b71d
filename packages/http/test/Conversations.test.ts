/** `/v1/conversations` and messages end to end (D19, D26-D29). */
import { assert, layer } from "@effect/vitest"
import { Agents, InvalidAssignee, InvalidAssigneeType, InvalidSender } from "@support-engine/core"
import { Effect } from "effect"
import { asTenant, envelope, raw, tenant, testServer, userOf } from "./Harness.js"

const unknownId = "00000000-0000-4000-8000-000000000000"

layer(testServer("conversations"), { excludeTestServices: true })("conversations", (it) => {
  it.effect("create (201) with defaults, get, update status and tags, delete (204)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const customer = yield* client.customers.create({ payload: { email: "ada@example.test" } })
      const created = yield* client.conversations.create({ payload: { customer_id: customer.id, subject: "Hi" } })
      assert.deepStrictEqual(
        [created.channel, created.status, created.priority, created.assignee_id, created.assignee_type],
        ["chat", "open", "normal", null, null]
      )
      const closed = yield* client.conversations.update({
        params: { id: created.id },
        payload: { status: "closed", tags: ["vip", "vip", "billing"] }
      })
      assert.strictEqual(closed.status, "closed")
      assert.isNotNull(closed.closed_at)
      assert.deepStrictEqual([...closed.tags].sort(), ["billing", "vip"])
      assert.deepStrictEqual(yield* client.conversations.get({ params: { id: created.id } }), closed)
      const listed = yield* client.conversations.list({ query: { status: "closed", customer_id: customer.id } })
      assert.deepStrictEqual(listed.data.map((c) => c.id), [created.id])
      assert.strictEqual((yield* raw("GET", "/v1/conversations?status=pending", { token })).status, 422)
      assert.strictEqual((yield* raw("DELETE", `/v1/conversations/${created.id}`, { token })).status, 204)
      assert.strictEqual((yield* raw("GET", `/v1/conversations/${created.id}`, { token })).status, 404)
    }))

  it.effect("subject is at most 500 characters; customer_id must be a customer of the workspace (422)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const customer = yield* client.customers.create({ payload: { email: "ada@example.test" } })
      const ok = yield* raw("POST", "/v1/conversations", {
        token,
        json: { customer_id: customer.id, subject: "s".repeat(500) }
      })
      assert.strictEqual(ok.status, 201)
      const long = yield* raw("POST", "/v1/conversations", {
        token,
        json: { customer_id: customer.id, subject: "s".repeat(501) }
      })
      assert.deepStrictEqual(Object.keys((long.body as { errors: object }).errors), ["subject"])
      const missing = yield* raw("POST", "/v1/conversations", { token, json: { customer_id: unknownId } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(Object.keys((missing.body as { errors: object }).errors), ["customer_id"])
    }))

  it.effect("assignment rules: 400 INVALID_ASSIGNEE and INVALID_ASSIGNEE_TYPE on create and update (D27)", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const { client, token } = owner
      const customer = yield* client.customers.create({ payload: { email: "ada@example.test" } })
      const user = yield* userOf(owner)
      const invalid = yield* raw("POST", "/v1/conversations", {
        token,
        json: { customer_id: customer.id, assignee_id: unknownId }
      })
      assert.strictEqual(invalid.status, 400)
      assert.strictEqual((invalid.body as { code: string }).code, "INVALID_ASSIGNEE")
      const typed = yield* Effect.flip(client.conversations.create({
        payload: { customer_id: customer.id, assignee_id: user.id, assignee_type: "agent" }
      }))
      assert.instanceOf(typed, InvalidAssigneeType)
      const assigned = yield* client.conversations.create({
        payload: { customer_id: customer.id, assignee_id: user.id }
      })
      assert.deepStrictEqual([assigned.assignee_id, assigned.assignee_type], [user.id, "user"])
      const agent = yield* client.agents.create({ payload: { name: "Other bot" } })
      const wrongAgent = yield* raw("PUT", `/v1/conversations/${assigned.id}`, {
        token,
        json: { assignee_id: agent.id }
      })
      assert.strictEqual(wrongAgent.status, 400)
      assert.deepStrictEqual(wrongAgent.body, {
        ...envelope((wrongAgent.body as { error: string }).error, "INVALID_ASSIGNEE_TYPE")
      })
      const typedUpdate = yield* Effect.flip(client.conversations.update({
        params: { id: assigned.id },
        payload: { assignee_id: unknownId }
      }))
      assert.instanceOf(typedUpdate, InvalidAssignee)
      const email = yield* client.conversations.create({ payload: { customer_id: customer.id, channel: "email" } })
      yield* Effect.flatMap(Agents, (agents) => agents.setEmailAgent(owner.workspace.id, agent.id)).pipe(
        asTenant(owner),
        Effect.orDie
      )
      const toEmailAgent = yield* client.conversations.update({
        params: { id: email.id },
        payload: { assignee_id: agent.id }
      })
      assert.deepStrictEqual([toEmailAgent.assignee_id, toEmailAgent.assignee_type], [agent.id, "agent"])
    }))

  it.effect("messages: create (201), list with sender_type and conversation_id, delete (204) (D19, D29)", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const { client, token } = owner
      const customer = yield* client.customers.create({ payload: { email: "ada@example.test" } })
      const user = yield* userOf(owner)
      const conversation = yield* client.conversations.create({ payload: { customer_id: customer.id } })
      const other = yield* client.conversations.create({ payload: { customer_id: customer.id } })
      const fromCustomer = yield* client.messages.create({
        params: { id: conversation.id },
        payload: { sender_type: "customer", sender_id: customer.id, content: "Help" }
      })
      assert.strictEqual(fromCustomer.customer_id, customer.id)
      const reply = yield* raw("POST", `/v1/conversations/${conversation.id}/messages`, {
        token,
        json: { sender_type: "user", sender_id: user.id, content: "On it", cc: ["boss@example.test"] }
      })
      assert.strictEqual(reply.status, 201)
      yield* client.messages.create({ params: { id: other.id }, payload: { sender_type: "system", content: "Hi" } })
      const byConversation = yield* client.messages.list({ query: { conversation_id: conversation.id } })
      assert.strictEqual(byConversation.meta.total, 2)
      const byType = yield* raw("GET", `/v1/messages?sender_type=user`, { token })
      assert.deepStrictEqual((byType.body as { data: Array<{ content: string }> }).data.map((m) => m.content), [
        "On it"
      ])
      assert.strictEqual((yield* raw("GET", "/v1/messages?sender_type=robot", { token })).status, 422)
      const refreshed = yield* client.conversations.get({ params: { id: conversation.id } })
      assert.isNotNull(refreshed.first_response_at)
      assert.strictEqual((yield* raw("DELETE", `/v1/messages/${fromCustomer.id}`, { token })).status, 204)
      assert.strictEqual((yield* raw("DELETE", `/v1/messages/${fromCustomer.id}`, { token })).status, 404)
    }))

  it.effect("400 INVALID_SENDER for a sender that is not allowed; 404 for an unknown conversation (D29)", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const { client, token } = owner
      const customer = yield* client.customers.create({ payload: { email: "ada@example.test" } })
      const stranger = yield* client.customers.create({ payload: { email: "bo@example.test" } })
      const conversation = yield* client.conversations.create({ payload: { customer_id: customer.id } })
      const wrongCustomer = yield* raw("POST", `/v1/conversations/${conversation.id}/messages`, {
        token,
        json: { sender_type: "customer", sender_id: stranger.id, content: "Hi" }
      })
      assert.strictEqual(wrongCustomer.status, 400)
      assert.strictEqual((wrongCustomer.body as { code: string }).code, "INVALID_SENDER")
      const typed = yield* Effect.flip(client.messages.create({
        params: { id: conversation.id },
        payload: { sender_type: "user", sender_id: customer.id, content: "Hi" }
      }))
      assert.instanceOf(typed, InvalidSender)
      const missing = yield* raw("POST", `/v1/conversations/${unknownId}/messages`, {
        token,
        json: { sender_type: "system", content: "Hi" }
      })
      assert.deepStrictEqual(missing.body, envelope("Conversation not found.", "RESOURCE_NOT_FOUND"))
      const empty = yield* raw("POST", `/v1/conversations/${conversation.id}/messages`, {
        token,
        json: { sender_type: "system", content: "" }
      })
      assert.deepStrictEqual(Object.keys((empty.body as { errors: object }).errors), ["content"])
    }))
})
