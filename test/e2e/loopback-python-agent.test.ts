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

const isAgentRequest = (r: ReceivedRequest) => JSON.stringify(r.body.messages).includes("Question: what is the capital of");

describe("a Python agent through the loopback audit endpoint", () => {
  it("is audited like our own calls (role agent, tokens --by role, the provider sees the configured key) and never sees the real key", async () => {
    const dir = tempDir();
    const envDir = join(dir, "agent-env");
    mkdirSync(envDir);
    const s = await server([], { fallback: scriptedAnswer as ServerStep, usage: (body) => usage(body) });
    const config = join(dir, "config.yaml");
    writeFileSync(
      config,
      `mode: real\nllm: {model: test-model, base_url: "${s.baseURL}", api_key_env: FAKE_KEY}\npricing: {test-model: {input: 2, output: 10}}\n` +
        `tasks:\n  - id: pyagent:capitals\n    eval_kwargs: {examples: 4, env_dir: ${JSON.stringify(envDir)}}\n` +
        `trainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1, num_threads: 2}]\nseeds: [3]\n`,
    );
    // The key sits in the engine's environment under several names: none may reach the agent.
    const env = { ...process.env, TRACE_BENCH_TASK_MODULES: SUITE, FAKE_KEY: KEY, OPENAI_API_KEY: KEY, SOME_OTHER_TOKEN: KEY };
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
});
