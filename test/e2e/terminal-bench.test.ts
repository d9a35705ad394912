/**
 * Terminal-Bench end to end: `list-tasks` lists the original's sample slugs; the original's demo
 * config validates with the original's job id and runs in mode stub without Harbor, scoring as
 * the original's stub does; in mode real, a stand-in `harbor` first on PATH makes its LLM calls
 * through the job's loopback audit endpoint, so they are in the log and in `tokens`, and it never
 * sees the real key.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { fakeOpenAiServers, type ReceivedRequest } from "../support/fake-openai-server.js";
import { harborStandIn } from "../support/harbor-stand-in.js";
import { csvRows, eventsOf } from "../support/run-dir.js";

const server = fakeOpenAiServers();
const KEY = "sk-terminal-bench-real-key";
const isHarborTurn = (r: ReceivedRequest) => JSON.stringify(r.body.messages).includes("harbor agent turn");

const DEMO = join(REPO_ROOT, "test", "fixtures", "configs", "original", "terminal_bench_demo.yaml");

describe("terminal_bench", () => {
  it("list-tasks lists the original's four sample slugs", async () => {
    const r = await runCli(["list-tasks", "--bench", "terminal_bench"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("terminal_bench:regex-log\nterminal_bench:log-summary-date-ranges\nterminal_bench:multi-source-data-merger\nterminal_bench:financial-document-processor\n");
  });

  it("the original's demo config validates with the original's job id", async () => {
    const r = await runCli(["validate", "--config", DEMO, "--strict", "--bench", "terminal_bench", "--runs-dir", tempDir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("[OK] terminal_bench:regex-log");
    expect(r.stdout).toContain("  job a33d67d4c4d5: terminal_bench:regex-log x PrioritySearch");
  });

  it("the demo config runs in mode stub without Harbor (none on PATH), scoring 0 as the original's stub", async () => {
    const dir = tempDir();
    const r = await runCli(["run", "--config", DEMO, "--runs-dir", dir, "--run-id", "stub"], { cwd: dir, env: { ...process.env, PATH: `${join(process.execPath, "..")}` } });
    expect(r.code, r.stderr).toBe(0);
    const [row] = csvRows(join(dir, "stub", "results.csv"));
    expect(row!.job_id).toBe("a33d67d4c4d5");
    expect(row!.status, row!.feedback).toBe("ok");
    expect(Number(row!.score_val_final)).toBe(0);
    expect(row!.resolved_guide).toBe("terminal_bench.TerminalBenchGuide");
    expect(readFileSync(join(dir, "stub", "jobs", "a33d67d4c4d5", "results.json"), "utf8")).toContain("STUB: terminal_bench task=regex-log (harbor not invoked)");
  });

  it("mode real: Harbor's LLM calls go through the job's audit endpoint (logged with role agent, counted by tokens), never with the real key", async () => {
    const dir = tempDir();
    const s = await server([], { fallback: (body) => (JSON.stringify(body.messages).includes("harbor agent turn") ? "ls -la" : "TERMINATE") });
    const harbor = harborStandIn({
      outcome: "results",
      jobResult: JSON.stringify({ stats: { n_errored_trials: 0 } }),
      trialResult: JSON.stringify({ verifier_result: { rewards: { reward: 1.0 } } }),
      llmCalls: 2,
    });
    const config = join(dir, "real.yaml");
    writeFileSync(
      config,
      `mode: real\nllm: {model: test-model, base_url: "${s.baseURL}", api_key_env: FAKE_KEY}\npricing: {test-model: {input: 2, output: 10}}\nseeds: [1]\n` +
        `tasks:\n  - id: terminal_bench:regex-log\n    eval_kwargs: {harbor_model: openai/test-model, harbor_env: docker, harbor_artifacts_dir: "${join(dir, "artifacts")}"}\n` +
        `trainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1}]\n`,
    );
    const env = { ...process.env, PATH: `${harbor.bin}:${dirname(process.execPath)}:/usr/bin:/bin`, FAKE_KEY: KEY, OPENAI_API_KEY: "" };
    const r = await runCliAsync(["run", "--config", config, "--runs-dir", dir, "--run-id", "real"], { cwd: REPO_ROOT, env, timeoutMs: 120_000 });
    expect(r.code, describeRun("run", r)).toBe(0);
    const runDir = join(dir, "real");
    const [row] = csvRows(join(runDir, "results.csv"));
    expect(row!.status, row!.feedback).toBe("ok");
    expect(Number(row!.score_val_initial)).toBe(1);

    // Harbor got the job's endpoint and secret, not the key; its replies came back through it.
    const calls = harbor.calls();
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.env.OPENAI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.+\/v1$/);
      expect(call.env.OPENAI_API_KEY).not.toBe(KEY);
      expect(call.env.OPENAI_API_KEY?.length ?? 0).toBeGreaterThan(16);
    }
    expect(harbor.replies()).toEqual(calls.map(() => ["ls -la", "ls -la"]));

    // Every request Harbor made reached the provider once, with the configured key, as a logged agent call.
    const turns = s.received.filter(isHarborTurn);
    expect(turns).toHaveLength(2 * calls.length);
    for (const q of s.received) expect(q.authorization).toBe(`Bearer ${KEY}`);
    const agentStarted = eventsOf(runDir).filter((e) => e.type === "LlmCallStarted" && e.data.role === "agent");
    expect(agentStarted).toHaveLength(turns.length);
    const audit = await runCliAsync(["tokens", runDir, "--by", "role", "--json"], { cwd: REPO_ROOT, env, timeoutMs: 60_000 });
    expect(audit.code, describeRun("tokens", audit)).toBe(0);
    const json = JSON.parse(audit.stdout) as { groups: { key: string; calls: { completed: number } }[] };
    expect(json.groups.find((g) => g.key === "agent")?.calls.completed).toBe(turns.length);
  }, 240_000);
});
