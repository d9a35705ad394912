/**
 * A Python agent that is not ours (test/fixtures/suites/python-agent-suite.mjs: plain urllib at
 * OPENAI_BASE_URL / OPENAI_API_KEY) run by the built CLI in mode real, in the sandboxed python
 * worker pool, against a scripted provider on 127.0.0.1. Its requests reach the job's loopback
 * endpoint through the worker's relay and are audited like our own calls: `LlmCallStarted` with
 * role agent and a slot, counted by `tokens --by role`, sent on to the provider with the
 * configured key. The environment the Python code saw holds the job's secret and never the key.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { fakeOpenAiServers, type ReceivedRequest, type ServerStep } from "../support/fake-openai-server.js";
import { csvRows, eventsOf } from "../support/run-dir.js";
// @ts-expect-error: a plain JavaScript fixture without types
import { scriptedAnswer, scriptedUsage } from "../fixtures/suites/agent-llm-suite.mjs";

const SUITE = join(REPO_ROOT, "test", "fixtures", "suites", "python-agent-suite.mjs");
const KEY = "sk-loopback-real-key-7f3a9c";
const server = fakeOpenAiServers();
const usage = scriptedUsage as (body: Record<string, unknown>) => { prompt_tokens: number; completion_tokens: number; total_tokens: number };

/** Variables the sandbox's allowlist may pass (adapters/sandbox/sandbox-env.ts), PWD (bubblewrap's), and the three the endpoint sets. */
const ALLOWED_VARIABLES = new Set([
  "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "TZ", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
  "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "PATH", "HOME", "TMPDIR", "PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "PWD",
  "OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_API_KEY",
]);

function writeConfig(dir: string, name: string, baseURL: string, envDir: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    `mode: real\nllm: {model: test-model, base_url: "${baseURL}", api_key_env: FAKE_KEY}\npricing: {test-model: {input: 2, output: 10}}\n` +
      `tasks:\n  - id: pyagent:capitals\n    eval_kwargs: {examples: 4, env_dir: ${JSON.stringify(envDir)}}\n` +
      `trainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1, num_threads: 2}]\nseeds: [3]\n`,
  );
  return path;
}

/** The key sits in the engine's environment under several names: none may reach the agent. */
const cliEnv = (extra: NodeJS.ProcessEnv = {}) => ({ ...process.env, TRACE_BENCH_TASK_MODULES: SUITE, FAKE_KEY: KEY, OPENAI_API_KEY: KEY, SOME_OTHER_TOKEN: KEY, ...extra });

/** What a job ended with, without timings. */
const outcome = (runDir: string) => csvRows(join(runDir, "results.csv")).map((r) => [r.job_id, r.status, r.score_val_initial, r.score_val_final, r.score_val, r.feedback, r.best_parameters ?? r.final_parameters ?? ""]);

const isPreflight = (r: ReceivedRequest) => JSON.stringify(r.body.messages).includes("Reply with the word OK.");
const isAgentRequest = (r: ReceivedRequest) => JSON.stringify(r.body.messages).includes("Question: what is the capital of");

describe("a Python agent through the loopback audit endpoint", () => {
  it("is audited like our own calls (role agent, tokens --by role, the provider sees the configured key) and never sees the real key", async () => {
    const dir = tempDir();
    const envDir = join(dir, "agent-env");
    mkdirSync(envDir);
    const s = await server([], { fallback: scriptedAnswer as ServerStep, usage: (body) => usage(body) });
    const config = writeConfig(dir, "config", s.baseURL, envDir);
    const env = cliEnv();
    const r = await runCliAsync(["run", "--config", config, "--runs-dir", dir, "--run-id", "py"], { cwd: REPO_ROOT, env, timeoutMs: 180_000 });
    expect(r.code, describeRun("run with the Python agent", r)).toBe(0);
    const runDir = join(dir, "py");
    const row = csvRows(join(runDir, "results.csv"))[0]!;
    expect(row.status, row.feedback).toBe("ok");
    // The optimizer's instructions made the Python agent exact: its replies really were used.
    expect(Number(row.score_val_final)).toBeGreaterThan(Number(row.score_val_initial));

    const agentRequests = s.received.filter(isAgentRequest);
    expect(agentRequests.length).toBeGreaterThanOrEqual(8);
    // The provider got every request with the configured key, never the job's secret.
    for (const q of s.received) expect(q.authorization).toBe(`Bearer ${KEY}`);

    const events = eventsOf(runDir);
    const agentStarted = events.filter((e) => e.type === "LlmCallStarted" && e.data.role === "agent");
    expect(agentStarted).toHaveLength(agentRequests.length);
    for (const e of agentStarted) expect(String(e.data.slot)).toMatch(/^\d+\/\d+\/0$/);

    const audit = await runCliAsync(["tokens", runDir, "--by", "role", "--json"], { cwd: REPO_ROOT, env, timeoutMs: 60_000 });
    expect(audit.code, describeRun("tokens --by role", audit)).toBe(0);
    const json = JSON.parse(audit.stdout) as { groups: { key: string; billed: { total_tokens: number }; calls: { completed: number } }[] };
    const agent = json.groups.find((g) => g.key === "agent")!;
    expect(agent.calls.completed).toBe(agentRequests.length);
    expect(agent.billed.total_tokens).toBe(agentRequests.reduce((sum, q) => sum + usage(q.body).total_tokens, 0));

    // What the Python code saw: one dump per agent call.
    const dumps = readdirSync(envDir).map((f) => JSON.parse(readFileSync(join(envDir, f), "utf8")) as { env: Record<string, string>; usage: unknown; secret: string });
    expect(dumps).toHaveLength(agentRequests.length);
    const secrets = new Set(dumps.map((d) => d.secret));
    expect(secrets.size).toBe(1);
    for (const dump of dumps) {
      expect(dump.env.OPENAI_API_KEY).toBe(dump.secret);
      expect(dump.secret).toMatch(/^tb-[0-9a-f]{48}$/);
      expect(dump.env.OPENAI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/b\d+-e\d+\/v1$/);
      for (const [name, value] of Object.entries(dump.env)) {
        expect(ALLOWED_VARIABLES.has(name), `the agent's environment has ${name}`).toBe(true);
        expect(value).not.toContain(KEY);
      }
    }
    // The agent read the usage the provider billed, passed through the endpoint.
    const billed = new Set(agentRequests.map((q) => JSON.stringify(usage(q.body))));
    for (const dump of dumps) expect(billed.has(JSON.stringify(dump.usage))).toBe(true);
  }, 240_000);

  it("a run killed (-9) while the Python agent works resumes answering its answered requests from the log, and ends as an uninterrupted run", async () => {
    const dir = tempDir();
    const envDir = join(dir, "agent-env");
    mkdirSync(envDir);
    const start = () => server([], { fallback: scriptedAnswer as ServerStep, usage: (body) => usage(body) });
    const whole = await start();
    const first = await runCliAsync(["run", "--config", writeConfig(dir, "whole", whole.baseURL, envDir), "--runs-dir", dir, "--run-id", "whole"], { cwd: REPO_ROOT, env: cliEnv(), timeoutMs: 180_000 });
    expect(first.code, describeRun("uninterrupted run", first)).toBe(0);
    const expected = outcome(join(dir, "whole")).map((row) => row.slice(1));
    // Killed right after the 3rd reply to the Python agent was committed.
    const third = eventsOf(join(dir, "whole")).filter((e) => e.type === "LlmCallCompleted" && e.data.role === "agent")[2]!;

    const s = await start();
    const config = writeConfig(dir, "killed", s.baseURL, envDir);
    const killed = await runCliAsync(["run", "--config", config, "--runs-dir", dir, "--run-id", "k"], { cwd: REPO_ROOT, env: cliEnv({ TRACE_BENCH_TEST_KILL_AFTER_SEQ: String(third.seq) }), timeoutMs: 180_000 });
    expect(killed.signal, describeRun("run killed mid-evaluation", killed)).toBe("SIGKILL");
    const before = eventsOf(join(dir, "k"));
    const slotOf = new Map(before.filter((e) => e.type === "LlmCallStarted").map((e) => [e.data.call, e.data.slot]));
    const answeredSlots = before.filter((e) => e.type === "LlmCallCompleted" && e.data.role === "agent").map((e) => slotOf.get(e.data.call));
    expect(answeredSlots.length).toBeGreaterThan(0);
    const sentBefore = s.received.length;

    const resumed = await runCliAsync(["run", "--config", config, "--runs-dir", dir, "--run-id", "k"], { cwd: REPO_ROOT, env: cliEnv(), timeoutMs: 180_000 });
    expect(resumed.code, describeRun("resumed run", resumed)).toBe(0);
    expect(outcome(join(dir, "k")).map((row) => row.slice(1))).toEqual(expected);
    const after = eventsOf(join(dir, "k")).slice(before.length);
    const secondAttempt = new Map(after.filter((e) => e.type === "LlmCallStarted").map((e) => [e.data.call, e.data]));
    const replayedSlots = after.filter((e) => e.type === "LlmCallCompleted" && e.data.replayed === true).map((e) => secondAttempt.get(e.data.call)!.slot);
    // The Python agent asked again; the journal answered every request answered before the kill...
    for (const slot of answeredSlots) expect(replayedSlots).toContain(slot);
    // ...and the provider got only the resumed run's live calls (and its preflight).
    const live = after.filter((e) => e.type === "LlmCallCompleted" && e.data.replayed !== true).length;
    expect(s.received.slice(sentBefore).filter((q) => !isPreflight(q))).toHaveLength(live);
  }, 400_000);
});
