/**
 * TaskCalls' loopback endpoint: a request to an example's endpoint is one of that example's calls
 * (recorded with role agent and the example's next slot, answered by the role's client), every
 * example of the job shares one endpoint and secret, and once the attempt closes it nothing is served.
 */
import { describe, expect, it } from "vitest";
import { TaskCalls } from "../../../src/llm/task-calls.js";
import { collector, fakeLlm, jobCalls, reply } from "../../unit/llm/call-fakes.js";

const post = (baseUrl: string, key: string, content: string) =>
  fetch(`${baseUrl}/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ model: "x", messages: [{ role: "user", content }], max_tokens: 10 }) });

describe("TaskCalls' loopback endpoint", () => {
  it("records a request to an example's endpoint at the example's next slot, shares one secret across examples, and serves nothing once closed", async () => {
    const c = collector();
    const task = new TaskCalls(jobCalls(c), () => fakeLlm((r) => reply(`answer to ${r.messages[0]!.content}`)), false);
    const batch = task.nextBatch();
    const zero = batch(0);
    await zero.complete({ role: "agent", messages: [{ role: "user", content: "direct" }], maxTokens: 10 });
    const endpoint = await zero.endpoint!();
    expect(await zero.endpoint!()).toBe(endpoint);
    const answer = await post(endpoint.baseUrl, endpoint.apiKey, "via http");
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { choices: { message: { content: string } }[]; usage: { total_tokens: number } };
    expect(body.choices[0]!.message.content).toBe("answer to via http");
    expect(body.usage.total_tokens).toBe(15);
    const other = await batch(3).endpoint!();
    expect(other.apiKey).toBe(endpoint.apiKey);
    expect(other.basePath).not.toBe(endpoint.basePath);
    expect((await post(other.baseUrl, other.apiKey, "from example 3")).status).toBe(200);
    expect(c.ofType("LlmCallStarted").map((d) => [d.role, d.slot])).toEqual([
      ["agent", "1/0/0"],
      ["agent", "1/0/1"],
      ["agent", "1/3/0"],
    ]);
    await task.close();
    await expect(post(endpoint.baseUrl, endpoint.apiKey, "late")).rejects.toThrow();
    await expect(batch(4).endpoint!()).rejects.toThrow(/closed: the attempt has ended/);
    expect(c.ofType("LlmCallStarted")).toHaveLength(3);
  });
});
