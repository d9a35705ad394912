/**
 * The agent port end to end: a task whose agent and guide call the LLM (test/fixtures/suites/
 * agent-llm-suite.mjs), run by the built CLI in mode real against a scripted server on 127.0.0.1
 * and in mode stub. The task's calls are in the log with their roles, `tokens --by role` adds up
 * with what the server billed, results do not depend on how many examples run at once, and a run
 * killed mid-evaluation resumes without sending an answered request again.
 */
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { fakeOpenAiServers, type FakeOpenAiServer, type ReceivedRequest, type ServerStep } from "../support/fake-openai-server.js";
import { csvRows, eventsOf, type EventRow } from "../support/run-dir.js";
// @ts-expect-error: a plain JavaScript fixture without types
import { scriptedAnswer, scriptedUsage } from "../fixtures/suites/agent-llm-suite.mjs";

const SUITE = join(REPO_ROOT, "test", "fixtures", "suites", "agent-llm-suite.mjs");
const KEY = "sk-agent-port-test-key";
const server = fakeOpenAiServers();
const answer = scriptedAnswer as (body: Record<string, unknown>) => string;
const usage = scriptedUsage as (body: Record<string, unknown>) => { prompt_tokens: number; completion_tokens: number; total_tokens: number };

const startServer = () => server([], { fallback: answer as ServerStep, usage: (body) => usage(body) });
const isPreflight = (r: ReceivedRequest) => JSON.stringify(r.body.messages).includes("Reply with the word OK.");
const work = (s: FakeOpenAiServer, from = 0) => s.received.slice(from).filter((r) => !isPreflight(r));
const userText = (r: ReceivedRequest) => JSON.stringify(r.body.messages);

function writeConfig(dir: string, name: string, mode: "real" | "stub", threads: number, baseURL = "", extra = ""): string {
  const path = join(dir, `${name}.yaml`);
  const llm = mode === "real" ? `llm: {model: test-model, base_url: "${baseURL}", api_key_env: FAKE_KEY, max_concurrency: 16}\npricing: {test-model: {input: 2, output: 10}}\n` : "";
  writeFileSync(path, `mode: ${mode}\n${llm}tasks: [agentqa:capitals]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1, num_threads: ${threads}}]\nseeds: [3]\n${extra}`);
  return path;
}

const run = (args: readonly string[], env: NodeJS.ProcessEnv = {}) =>
  runCliAsync(args, { cwd: REPO_ROOT, env: { ...process.env, TRACE_BENCH_TASK_MODULES: SUITE, FAKE_KEY: KEY, OPENAI_API_KEY: "", ...env }, timeoutMs: 120_000 });

/** What a job ended with, without timings: status, scores, feedback and final values. */
function outcome(runDir: string) {
  return csvRows(join(runDir, "results.csv")).map((r) => [r.job_id, r.status, r.score_val_initial, r.score_val_final, r.score_val, r.feedback, r.best_parameters ?? r.final_parameters ?? ""]);
}

const started = (events: EventRow[], role: string) => events.filter((e) => e.type === "LlmCallStarted" && e.data.role === role);
/** Each task call's slot and request: the job's calls, whatever order they left in. */
const slotted = (events: EventRow[]) =>
  events
    .filter((e) => e.type === "LlmCallStarted" && e.data.slot !== undefined)
    .map((e) => `${String(e.data.slot)} ${String(e.data.role)} ${String(e.data.request_hash)}`)
    .sort();

/** The most agent calls started and not yet ended at once, in the log's order. */
function mostAgentCallsOpen(events: EventRow[]): number {
  const open = new Set<unknown>();
  let most = 0;
  for (const e of events) {
    if (e.type === "LlmCallStarted" && e.data.role === "agent") open.add(`${String(e.data.attempt)}:${String(e.data.call)}`);
    else if (e.type.startsWith("LlmCall") && e.data.role === "agent") open.delete(`${String(e.data.attempt)}:${String(e.data.call)}`);
    most = Math.max(most, open.size);
  }
  return most;
}

describe("the agent port in mode real", () => {
  it("records the agent's and the guide's calls with their roles; tokens --by role adds up with the server; results are the same at 1 and 10 examples at once", async () => {
    const dir = tempDir();
    const results: Record<number, { outcome: unknown; slots: string[]; requests: string[] }> = {};
    for (const threads of [1, 10]) {
      const s = await startServer();
      const r = await run(["run", "--config", writeConfig(dir, `t${threads}`, "real", threads, s.baseURL), "--runs-dir", dir, "--run-id", `t${threads}`]);
      expect(r.code, describeRun(`run at num_threads ${threads}`, r)).toBe(0);
      const runDir = join(dir, `t${threads}`);
      const events = eventsOf(runDir);
      const agentRequests = work(s).filter((q) => userText(q).includes("Question: what is the capital of"));
      const guideRequests = work(s).filter((q) => userText(q).includes("Judge: does the reply"));
      // Every request the task's agent and guide sent is one recorded call of its role.
      expect(agentRequests.length).toBeGreaterThan(12);
      expect(started(events, "agent")).toHaveLength(agentRequests.length);
      expect(started(events, "guide")).toHaveLength(guideRequests.length);
      expect(started(events, "optimizer").length).toBeGreaterThan(0);
      expect(started(events, "optimizer").length + agentRequests.length + guideRequests.length).toBe(work(s).length);

      const audit = await run(["tokens", runDir, "--by", "role", "--json"]);
      expect(audit.code, describeRun("tokens --by role", audit)).toBe(0);
      const json = JSON.parse(audit.stdout) as { groups: { key: string; billed: { total_tokens: number }; calls: { completed: number } }[]; totals: { billed: { total_tokens: number } } };
      const byRole = Object.fromEntries(json.groups.map((g) => [g.key, g]));
      const billed = (requests: ReceivedRequest[]) => requests.reduce((sum, q) => sum + usage(q.body).total_tokens, 0);
      expect(byRole.agent!.billed.total_tokens).toBe(billed(agentRequests));
      expect(byRole.guide!.billed.total_tokens).toBe(billed(guideRequests));
      expect(byRole.agent!.calls.completed).toBe(agentRequests.length);
      // Everything, the preflight and the optimizer included, is what the server billed.
      expect(json.totals.billed.total_tokens).toBe(billed([...s.received]));
      expect(mostAgentCallsOpen(events)).toBe(threads === 1 ? 1 : Math.min(threads, 12));
      // The job id differs (num_threads is a trainer kwarg); what the job ended with may not.
      results[threads] = { outcome: outcome(runDir).map((row) => row.slice(1)), slots: slotted(events), requests: work(s).map((q) => JSON.stringify(q.body)).sort() };
    }
    // The optimizer made the agent exact: training did something the scores show.
    const rows = csvRows(join(dir, "t1", "results.csv"));
    expect(Number(rows[0]!.score_val_final)).toBeGreaterThan(Number(rows[0]!.score_val_initial));
    expect(results[10]!.outcome).toEqual(results[1]!.outcome);
    // The same calls at the same slots, and the same requests, whatever order they left in.
    expect(results[10]!.slots).toEqual(results[1]!.slots);
    expect(results[10]!.requests).toEqual(results[1]!.requests);
  }, 240_000);

  it("a run killed (-9) mid-evaluation resumes answering its answered calls from the log, and ends as an uninterrupted run", async () => {
    const dir = tempDir();
    const whole = await startServer();
    const first = await run(["run", "--config", writeConfig(dir, "whole", "real", 4, whole.baseURL), "--runs-dir", dir, "--run-id", "whole"]);
    expect(first.code, describeRun("uninterrupted run", first)).toBe(0);
    const expected = outcome(join(dir, "whole"));
    // Killed right after the 6th agent reply of the initial evaluation was committed.
    const sixth = eventsOf(join(dir, "whole")).filter((e) => e.type === "LlmCallCompleted" && e.data.role === "agent")[5]!;

    const s = await startServer();
    const cfg = writeConfig(dir, "killed", "real", 4, s.baseURL);
    const killed = await run(["run", "--config", cfg, "--runs-dir", dir, "--run-id", "k"], { TRACE_BENCH_TEST_KILL_AFTER_SEQ: String(sixth.seq) });
    expect(killed.signal, describeRun("run killed mid-evaluation", killed)).toBe("SIGKILL");
    const before = eventsOf(join(dir, "k"));
    expect(before.some((e) => e.type === "EvaluationCompleted")).toBe(false);
    const answered = before.filter((e) => e.type === "LlmCallCompleted" && e.data.role === "agent");
    expect(answered.length).toBeGreaterThan(0);
    const slotOf = new Map(before.filter((e) => e.type === "LlmCallStarted").map((e) => [e.data.call, e.data.slot]));
    const answeredSlots = answered.map((e) => slotOf.get(e.data.call));
    const sentBefore = s.received.length;

    const resumed = await run(["run", "--config", cfg, "--runs-dir", dir, "--run-id", "k"]);
    expect(resumed.code, describeRun("resumed run", resumed)).toBe(0);
    expect(outcome(join(dir, "k"))).toEqual(expected);
    const after = eventsOf(join(dir, "k")).slice(before.length);
    const secondAttempt = new Map(after.filter((e) => e.type === "LlmCallStarted").map((e) => [e.data.call, e.data]));
    const replayedSlots = after.filter((e) => e.type === "LlmCallCompleted" && e.data.replayed === true).map((e) => secondAttempt.get(e.data.call)!.slot);
    // Every call answered before the kill was answered from the log...
    for (const slot of answeredSlots) expect(replayedSlots).toContain(slot);
    // ...and what the resumed run sent is exactly its calls that were not replayed.
    const live = after.filter((e) => e.type === "LlmCallCompleted" && e.data.replayed !== true).length;
    expect(work(s, sentBefore)).toHaveLength(live);
    const audit = await run(["tokens", join(dir, "k")]);
    expect(audit.code, describeRun("tokens after the resume", audit)).toBe(0);
  }, 240_000);
});

describe("the agent port in mode stub", () => {
  it("answers the agent and guide from (seed, request), the same on every run, recorded as the stub's", async () => {
    const dir = tempDir();
    const outcomes = [];
    for (const id of ["a", "b"]) {
      const r = await run(["run", "--config", writeConfig(dir, id, "stub", 4), "--runs-dir", dir, "--run-id", id]);
      expect(r.code, describeRun("stub run", r)).toBe(0);
      const events = eventsOf(join(dir, id));
      const agentCalls = events.filter((e) => e.type === "LlmCallCompleted" && e.data.role === "agent");
      expect(agentCalls.length).toBeGreaterThan(0);
      for (const call of agentCalls) expect(call.data).toMatchObject({ model: "stub", estimated: true });
      outcomes.push({ outcome: outcome(join(dir, id)), slots: slotted(events) });
    }
    expect(outcomes[1]).toEqual(outcomes[0]);
    // The stub's answers are never right, and the feedback shows them as stub answers.
    const row = csvRows(join(dir, "a", "results.csv"))[0]!;
    expect(row.feedback).toContain("[stub answer]");
  }, 120_000);
});
