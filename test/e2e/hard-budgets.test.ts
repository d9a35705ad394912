/**
 * Hard budgets and honest crash accounting, end to end: the built CLI, the real `openai` client and
 * a scripted OpenAI-compatible server that bills as a provider does (prompt tokens counted from the
 * request, at most max_tokens of completion). Caps that the soft budgets overshot (they stopped a
 * job only once it had spent its cap, so the last request went past it) are never passed, with one
 * worker or four; a run stopped by its budget says how to continue; after kill -9 during a call,
 * `tokens` bounds what the server billed.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { startFakeOpenAiServer, type FakeOpenAiServer, type ServerStep } from "../support/fake-openai-server.js";
import { csvRows } from "../support/run-dir.js";
import { billedUsage, deterministicReply } from "../support/scripted-llm.js";

const KEY = "sk-test-never-written-anywhere-42";
const MAX_TOKENS = 64;
const servers: FakeOpenAiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});



async function server(script: readonly ServerStep[] = []): Promise<FakeOpenAiServer> {
  const s = await startFakeOpenAiServer(script, { fallback: ((b: Record<string, unknown>) => deterministicReply(b)) as ServerStep, usage: billedUsage });
  servers.push(s);
  return s;
}

/** Every token the server billed: each request it received, answered or not (the client may have died waiting). */
const serverBilled = (s: FakeOpenAiServer) => s.received.reduce((sum, r) => sum + billedUsage(r.body).total_tokens, 0);
const isPreflight = (body: Record<string, unknown>) => JSON.stringify(body.messages).includes("Reply with the word OK.");

function config(dir: string, s: FakeOpenAiServer, body: string): string {
  const path = join(dir, "real.yaml");
  writeFileSync(
    path,
    `mode: real\nllm: {model: test-model, base_url: "${s.baseURL}", api_key_env: FAKE_KEY}\npricing: {test-model: {input: 2, output: 10}}\noptimizer_kwargs: {max_tokens: ${MAX_TOKENS}}\ntasks: [internal:numeric_param]\n${body}`,
  );
  return path;
}

const run = (args: readonly string[], killWhen?: () => boolean) =>
  runCliAsync(args, { cwd: REPO_ROOT, env: { ...process.env, FAKE_KEY: KEY, OPENAI_API_KEY: "" }, timeoutMs: 120_000, ...(killWhen ? { killWhen } : {}) });

describe("hard budgets against a scripted server", () => {
  it.each([1, 4])("a job token budget is never passed (max_workers %i): each job stops before the request that could pass it", async (workers) => {
    const s = await server();
    const dir = tempDir();
    // Each request bills ~850-1150 tokens: a job that may spend 6000 was stopped at 6000-7000 by the soft budget.
    const body = `seeds: [1, 2, 3, 4]\nmax_workers: ${workers}\nbudget: {max_tokens_per_job: 6000}\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 6}]\n`;
    const r = await run(["run", "--config", config(dir, s, body), "--runs-dir", dir, "--run-id", "a"]);
    expect(r.code, describeRun("run", r)).toBe(0);
    const rows = csvRows(join(dir, "a", "results.csv"));
    expect(rows.map((row) => row.status)).toEqual(Array(4).fill("budget_exhausted"));
    for (const row of rows) {
      expect(Number(row.total_tokens)).toBeGreaterThan(0);
      expect(Number(row.total_tokens)).toBeLessThanOrEqual(6000);
      expect(row.feedback).toMatch(/^budget_exhausted: job token budget: the next request may use up to \d+ tokens, more than the \d+ left of max_tokens_per_job 6000 \(\d+ prompt tokens at most \+ max_tokens 64\)$/);
    }
    // The server billed what the log knows: the jobs' calls and the preflight.
    const preflight = s.received.filter((q) => isPreflight(q.body)).reduce((sum, q) => sum + billedUsage(q.body).total_tokens, 0);
    expect(serverBilled(s)).toBe(rows.reduce((sum, row) => sum + Number(row.total_tokens), 0) + preflight);
    const most = Math.max(...rows.map((row) => Number(row.total_tokens)));
    expect(r.stdout).toContain(`Budget: max_tokens_per_job 6000: at most ${most} by one job`);
  }, 180_000);

  it.each([1, 4])("a run token budget is never passed (max_workers %i); jobs left unstarted make exit 3 and one line on how to continue", async (workers) => {
    const s = await server();
    const dir = tempDir();
    // 8 jobs of ~12 requests (~12 000 tokens) each; the soft budget let the run spend past 15 000.
    const body = (cap: number) => `seeds: [1, 2, 3, 4, 5, 6, 7, 8]\nmax_workers: ${workers}\nbudget: {max_tokens_per_run: ${cap}}\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 4}]\n`;
    const cfg = config(dir, s, body(15_000));
    const args = ["run", "--config", cfg, "--runs-dir", dir, "--run-id", "a"];
    const r = await run(args);
    expect(serverBilled(s)).toBeLessThanOrEqual(15_000);
    expect(r.code, describeRun("run", r)).toBe(3);
    const manifest = JSON.parse(readFileSync(join(dir, "a", "meta", "manifest.json"), "utf8")) as { jobs: { status: string; skip_reason?: string }[] };
    const left = manifest.jobs.filter((j) => j.status === "not_executed");
    expect(left.length).toBeGreaterThan(0);
    for (const job of left) expect(job.skip_reason).toMatch(/^run_budget_spent: run token budget: /);
    const lines = r.stderr.trim().split("\n");
    // Started from the clone (not from PATH), the printed command is npx trace-bench.
    expect(lines.filter((line) => line.includes("to continue"))).toEqual([
      `trace-bench: the run's budget is spent and ${left.length} job${left.length === 1 ? " was" : "s were"} not executed; to continue, raise budget.max_tokens_per_run in ${cfg} and run: npx trace-bench run --config ${cfg} --runs-dir ${dir} --run-id a`,
    ]);
    // The closing lines show the cap and what was spent: every billed token, never above the cap.
    expect(r.stdout).toContain(`Budget: max_tokens_per_run 15000: ${serverBilled(s)} spent`);

    // As the line says: a raised budget and the same command run the jobs left, and the run ends.
    writeFileSync(cfg, readFileSync(cfg, "utf8").replace("max_tokens_per_run: 15000", "max_tokens_per_run: 1000000"));
    const resumed = await run(args);
    expect(resumed.code, describeRun("resume", resumed)).toBe(0);
    const after = JSON.parse(readFileSync(join(dir, "a", "meta", "manifest.json"), "utf8")) as { jobs: { status: string }[] };
    expect(after.jobs.filter((j) => j.status === "not_executed")).toEqual([]);
    expect(resumed.stdout).toContain(`Budget: max_tokens_per_run 1000000: ${serverBilled(s)} spent`);
  }, 240_000);
});

describe("honest crash accounting", () => {
  it("after kill -9 during a call and a resume, the server's bill lies between tokens' known total and known + lost_at_most; the preflights are calls", async () => {
    // The fourth request (the third of the job) is answered only after a minute: the run is killed while it waits.
    const s = await server([...Array(3).fill(((b: Record<string, unknown>) => deterministicReply(b)) as ServerStep), { reply: "never delivered", delayMs: 60_000 }]);
    const dir = tempDir();
    const body = "seeds: [1]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 3}]\n";
    const args = ["run", "--config", config(dir, s, body), "--runs-dir", dir, "--run-id", "a"];
    const killed = await run(args, () => s.received.length >= 4);
    expect(killed.signal, describeRun("run killed mid-call", killed)).toBe("SIGKILL");
    const resumed = await run(args);
    expect(resumed.code, describeRun("resume", resumed)).toBe(0);

    const audit = await run(["tokens", join(dir, "a"), "--json"]);
    expect(audit.code, describeRun("tokens", audit)).toBe(0);
    const json = JSON.parse(audit.stdout) as {
      totals: { calls: Record<string, number>; billed: { total_tokens: number }; lost_at_most: { total_tokens: number; completion_tokens: number; unbounded: number } };
      groups: { key: string; calls: { completed: number } }[];
      reconciliation: { reconciled: boolean; every_token_known: boolean };
    };
    expect(json.totals.calls.lost).toBe(1);
    expect(json.totals.lost_at_most.unbounded).toBe(0);
    expect(json.totals.lost_at_most.completion_tokens).toBe(MAX_TOKENS);
    const known = json.totals.billed.total_tokens;
    const billed = serverBilled(s);
    expect(billed).toBeGreaterThan(known);
    expect(billed).toBeLessThanOrEqual(known + json.totals.lost_at_most.total_tokens);
    expect(json.reconciliation).toMatchObject({ reconciled: true, every_token_known: false });
    // Both invocations' preflights are calls of their own.
    expect(json.groups.find((g) => g.key === "(preflight)")?.calls.completed).toBe(2);

    // Said in words: the files agree on the known tokens; nothing claims the log knows every token.
    const text = await run(["tokens", join(dir, "a"), "--by", "role"]);
    expect(text.stdout).toMatch(/^preflight +2 /m);
    expect(text.stdout).not.toContain("reconciled:");
    expect(text.stdout).toContain("known tokens only: events, results.csv and summary.json agree on the billed tokens; not known: what 1 aborted or lost call(s) were billed (see lost_at_most)");
    const calls = await run(["calls", join(dir, "a")]);
    expect(calls.stdout).toMatch(/lost: no outcome in the log \(the process stopped mid-call; a resume sends it again\); billed at most \d+ tokens \(\d+ prompt \+ max_tokens 64\)/);
    expect(calls.stdout).toMatch(/=== preflight of invocation 2 \(event \d+\): preflight test-model: completed/);
  }, 180_000);
});
