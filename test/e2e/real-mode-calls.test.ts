/**
 * Mode real end to end: the built CLI, the real `openai` client, a scripted OpenAI-compatible
 * server on 127.0.0.1. Every request is in the log, totals agree everywhere, failures are honest,
 * budgets stop jobs, Ctrl-C aborts a request in flight, and a killed run resumed from its journal
 * sends no request twice.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, REPO_ROOT, tempDir } from "../support/cli.js";
import { runCliAsync, describeRun } from "../support/crash-harness.js";
import { startFakeOpenAiServer, type FakeOpenAiServer, type ReceivedRequest, type ServerStep } from "../support/fake-openai-server.js";
import { csvRows, eventsOf, filesUnder } from "../support/run-dir.js";
import { repeats } from "../support/repeats.js";
import { deterministicReply, xmlReply } from "../support/scripted-llm.js";

const KEY = "sk-test-never-written-anywhere-42";
const servers: FakeOpenAiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function server(script: readonly ServerStep[], fallback?: ServerStep): Promise<FakeOpenAiServer> {
  const s = await startFakeOpenAiServer(script, fallback === undefined ? {} : { fallback });
  servers.push(s);
  return s;
}


const isPreflight = (r: ReceivedRequest) => JSON.stringify(r.body.messages).includes("Reply with the word OK.");
const work = (s: FakeOpenAiServer) => s.received.filter((r) => !isPreflight(r));

function config(dir: string, s: FakeOpenAiServer, body: string, llmExtra = ""): string {
  const path = join(dir, "real.yaml");
  writeFileSync(path, `mode: real\nllm: {model: test-model, base_url: "${s.baseURL}", api_key_env: FAKE_KEY${llmExtra}}\npricing: {test-model: {input: 2, output: 10, cached_input: 1}}\n${body}`);
  return path;
}

const run = (args: readonly string[], env: NodeJS.ProcessEnv = {}) => runCliAsync(args, { cwd: REPO_ROOT, env: { ...process.env, FAKE_KEY: KEY, OPENAI_API_KEY: "", ...env }, timeoutMs: 60_000 });

/** `run` of `cfg` as a child process, its output gathered; for tests that signal it mid-way. */
function startRun(cfg: string, dir: string) {
  const child = spawn(process.execPath, [CLI, "run", "--config", cfg, "--runs-dir", dir, "--run-id", "a"], {
    cwd: REPO_ROOT,
    env: { ...process.env, FAKE_KEY: KEY, OPENAI_API_KEY: "" },
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return { child, output: () => output, exited };
}

/** Polls `condition` every 50 ms for up to 20 s. */
async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

const TWO_TRAINERS = "tasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 2}]\n  - id: GEPA-Base\n    params_variants: [{gepa_iters: 2}]\n";

describe("mode real: every call in the log", () => {
  it("records each request before it is sent and its outcome after; tokens and cost agree in events, results.csv and summary.json", async () => {
    const live = await server([], ((body: Record<string, unknown>) => deterministicReply(body)) as ServerStep);
    const dir = tempDir();
    const r = await run(["run", "--config", config(dir, live, TWO_TRAINERS), "--runs-dir", dir, "--run-id", "a"]);
    expect(r.code, describeRun("run", r)).toBe(0);
    const runDir = join(dir, "a");
    const events = eventsOf(runDir);
    const started = events.filter((e) => e.type === "LlmCallStarted");
    const completed = events.filter((e) => e.type === "LlmCallCompleted");
    // Every request the server saw (but the preflight) is one Started with one outcome, in order.
    expect(started.length).toBe(work(live).length);
    expect(completed.length).toBe(started.length);
    for (const c of completed) {
      const s0 = started.find((e) => e.job_id === c.job_id && e.data.call === c.data.call)!;
      expect(s0.seq).toBeLessThan(c.seq);
      expect(typeof c.data.reply_ref).toBe("string");
    }
    const sum = (key: string) => completed.reduce((t, e) => t + Number(e.data[key]), 0);
    const rows = csvRows(join(runDir, "results.csv"));
    expect(rows.map((row) => row.status)).toEqual(["ok", "ok"]);
    expect(rows.reduce((t, row) => t + Number(row.total_tokens), 0)).toBe(sum("total_tokens"));
    expect(rows.reduce((t, row) => t + Number(row.prompt_tokens), 0)).toBe(sum("prompt_tokens"));
    const summary = JSON.parse(readFileSync(join(runDir, "summary.json"), "utf8"));
    expect(summary.token_totals.total_tokens).toBe(sum("total_tokens"));
    expect(summary.token_totals_all_attempts.total_tokens).toBe(sum("total_tokens"));
    // The fake server reports usage 100+k prompt / 20 completion: $2 and $10 per 1M tokens.
    const expectedCost = completed.reduce((t, e) => t + (Number(e.data.prompt_tokens) * 2 + Number(e.data.completion_tokens) * 10) / 1e6, 0);
    expect(summary.cost_usd).toBeCloseTo(expectedCost, 12);
    expect(rows.reduce((t, row) => t + Number(row.cost_usd), 0)).toBeCloseTo(expectedCost, 12);
    expect(summary.llm_by_model["test-model"].calls).toBe(completed.length);
    expect(summary.llm_note).toBeUndefined(); // only stub runs carry the stub's label
    expect(r.stdout).not.toContain("Mode stub:");
    // The preflight request is billed too: recorded with RunStarted, reported apart from the jobs.
    const preflight = live.received.findIndex(isPreflight);
    expect(preflight).toBe(0);
    expect(summary.llm_preflight).toEqual({ calls: 1, prompt_tokens: 101, completion_tokens: 20, total_tokens: 121, cost_usd: (101 * 2 + 20 * 10) / 1e6 });
    expect(r.stdout).toMatch(new RegExp(`LLM: ${completed.length} calls, ${sum("total_tokens")} tokens`));
    // The prompts are stored once each: the shared system prompt is one row of the content table.
    const messages = started.flatMap((e) => e.data.messages as { role: string; ref: string }[]);
    const systemRefs = new Set(messages.filter((m) => m.role === "system").map((m) => m.ref));
    expect(messages.filter((m) => m.role === "system").length).toBeGreaterThan(systemRefs.size);
    // The key is nowhere: not in any file, not in the database, not on the console.
    for (const [path, content] of filesUnder(runDir)) expect(content.includes(KEY), path).toBe(false);
    for (const name of readdirSync(runDir).filter((f) => f.startsWith("events.db"))) expect(readFileSync(join(runDir, name)).includes(KEY), name).toBe(false);
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it("a re-run whose LLM columns changed (the endpoint from OPENAI_BASE_URL) renders every settled job's files again, as replay does", async () => {
    const first = await server([], ((body: Record<string, unknown>) => deterministicReply(body)) as ServerStep);
    const second = await server([], ((body: Record<string, unknown>) => deterministicReply(body)) as ServerStep);
    const dir = tempDir();
    const cfg = join(dir, "env-endpoint.yaml");
    writeFileSync(cfg, `mode: real\nllm: {model: test-model, api_key_env: FAKE_KEY}\npricing: {test-model: {input: 2, output: 10}}\nseeds: [1, 2]\n${TWO_TRAINERS}`);
    const args = ["run", "--config", cfg, "--runs-dir", dir, "--run-id", "a"];
    const r1 = await run(args, { OPENAI_BASE_URL: first.baseURL });
    expect(r1.code, describeRun("run", r1)).toBe(0);
    // Reopened, every job is settled (its details dropped); the new endpoint changes every job's files.
    const r2 = await run(args, { OPENAI_BASE_URL: second.baseURL });
    expect(r2.code, describeRun("re-run", r2)).toBe(0);
    const runDir = join(dir, "a");
    const rows = csvRows(join(runDir, "results.csv"));
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(row.llm_base_url).toBe(second.baseURL);
      const meta = JSON.parse(readFileSync(join(runDir, "jobs", row.job_id!, "job_meta.json"), "utf8")) as { llm: { llm_base_url: string } };
      expect(meta.llm.llm_base_url).toBe(second.baseURL);
      expect(readFileSync(join(runDir, "jobs", row.job_id!, "stdout.log"), "utf8")).toContain("finished ok");
    }
    const live = filesUnder(runDir);
    const replay = await runCliAsync(["replay", runDir], { cwd: REPO_ROOT, env: process.env, timeoutMs: 60_000 });
    expect(replay.code, describeRun("replay", replay)).toBe(0);
    expect(filesUnder(runDir)).toEqual(live);
  });

  it("a wrong key (401) stops the run before any job, with one line and exit 2, after one request; no run dir is left", async () => {
    const s = await server([], { status: 401, message: `Incorrect API key provided: ${KEY.slice(0, 6)}***42` });
    const dir = tempDir();
    const r = await run(["run", "--config", config(dir, s, TWO_TRAINERS), "--runs-dir", dir, "--run-id", "a"]);
    expect(r.code, describeRun("run", r)).toBe(2);
    expect(s.received.length).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("(auth)");
    expect(r.stderr).not.toContain(KEY.slice(0, 10));
    expect(existsSync(join(dir, "a"))).toBe(false);
  });

  it("a server that cannot be reached stops the run at the preflight, exit 2, one line", async () => {
    const s = await server([]);
    const dead = s.baseURL;
    await s.close(); // nothing listens there any more
    servers.pop();
    const dir = tempDir();
    const path = join(dir, "real.yaml");
    writeFileSync(path, `mode: real\nllm: {model: test-model, base_url: "${dead}", api_key_env: FAKE_KEY, max_retries: 1}\n${TWO_TRAINERS}`);
    const r = await run(["run", "--config", path, "--runs-dir", dir, "--run-id", "a"]);
    expect(r.code, describeRun("run", r)).toBe(2);
    expect(r.stderr).toMatch(/^trace-bench: the LLM preflight request failed \(network\): connection refused to .* \(ECONNREFUSED\) \(1 retry\); no job was started\n$/);
    expect(existsSync(join(dir, "a"))).toBe(false);
  });

  it("a cost budget for a model without a price is refused before anything is sent", async () => {
    const s = await server([]);
    const dir = tempDir();
    const path = join(dir, "real.yaml");
    writeFileSync(path, `mode: real\nllm: {model: unpriced-model, base_url: "${s.baseURL}", api_key_env: FAKE_KEY}\nbudget: {max_cost_per_job: 1}\n${TWO_TRAINERS}`);
    const r = await run(["run", "--config", path, "--runs-dir", dir, "--run-id", "a"]);
    expect(r.code, describeRun("run", r)).toBe(2);
    expect(r.stderr).toContain("budget: a cost budget needs a price for model 'unpriced-model'; add it under pricing:");
    expect(s.received).toHaveLength(0);
    expect(existsSync(join(dir, "a"))).toBe(false);
  });

  it("GEPA, PrioritySearch and BasicSearch jobs whose calls all fail end failed with llm_unavailable, never ok", async () => {
    const s = await server(["OK"], { status: 500, message: "the server is down" });
    const dir = tempDir();
    const body = `${TWO_TRAINERS}  - id: BasicSearchAlgorithm\n    params_variants: [{num_epochs: 1}]\n`;
    const r = await run(["run", "--config", config(dir, s, body, ", max_retries: 1"), "--runs-dir", dir, "--run-id", "a"]);
    expect(r.code, describeRun("run", r)).toBe(1);
    const rows = csvRows(join(dir, "a", "results.csv"));
    expect(rows.map((row) => [row.trainer_id, row.status])).toEqual([
      ["PrioritySearch", "failed"],
      ["GEPA-Base", "failed"],
      ["BasicSearchAlgorithm", "failed"],
    ]);
    for (const row of rows) {
      expect(row.feedback).toMatch(/^llm_unavailable: \d+ of \d+ LLM calls failed; last: 500 the server is down \(1 retry\)$/);
      expect(Number(row.llm_errors)).toBeGreaterThan(0);
    }
    // No job qualifies: the leaderboard is its header alone (the run printed its path).
    expect(readFileSync(join(dir, "a", "leaderboard.csv"), "utf8").split("\r\n").filter(Boolean)).toHaveLength(1);
    const failed = eventsOf(join(dir, "a")).filter((e) => e.type === "LlmCallFailed");
    expect(failed.every((e) => e.data.error_class === "server" && e.data.http_status === 500 && e.data.retries === 1)).toBe(true);
  });

  it("a job token budget stops training before a request that could pass it: the job ends budget_exhausted with its best state scored", async () => {
    const s = await server([], ((body: Record<string, unknown>) => deterministicReply(body)) as ServerStep);
    const dir = tempDir();
    const body = "budget: {max_tokens_per_job: 250}\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 6}]\n";
    const r = await run(["run", "--config", config(dir, s, body), "--runs-dir", dir, "--run-id", "a"]);
    expect(r.code, describeRun("run", r)).toBe(0);
    const [row] = csvRows(join(dir, "a", "results.csv"));
    expect(row!.status).toBe("budget_exhausted");
    // The optimizer's request may use its prompt and max_tokens (4096 by default): more than 250, so it is not sent.
    expect(row!.feedback).toMatch(/^budget_exhausted: job token budget: the next request may use up to \d+ tokens, more than the 250 left of max_tokens_per_job 250 \(\d+ prompt tokens at most \+ max_tokens \d+\)$/);
    expect(row!.score_val_final).not.toBe("");
    expect(work(s).length).toBe(0);
    expect(Number(row!.total_tokens)).toBe(0);
  });
});

describe("mode real: the run stops", () => {
  it("a key revoked after the preflight: the first 401 stops the run (no retries, no further jobs), exit 2, and the jobs stay resumable", async () => {
    const s = await server(["OK"], { status: 401, message: "the key was revoked" });
    const dir = tempDir();
    const r = await run(["run", "--config", config(dir, s, TWO_TRAINERS), "--runs-dir", dir, "--run-id", "a"]);
    expect(r.code, describeRun("run", r)).toBe(2);
    expect(s.received.length).toBe(2); // the preflight and one job request: nothing retried, nothing more sent
    expect(r.stderr).toMatch(/run stopped: the LLM refused it \(auth\): 401 the key was revoked/);
    const events = eventsOf(join(dir, "a"));
    expect(events.filter((e) => e.type === "LlmCallFailed").map((e) => e.data.error_class)).toEqual(["auth"]);
    const interrupted = events.find((e) => e.type === "RunInterrupted")!;
    expect(interrupted.data.signal).toBe("llm_auth");
    // No job ended ok or failed on a refused key: the one running was cancelled, the other never started.
    expect(events.filter((e) => e.type === "JobFinished").map((e) => e.data.status)).toEqual(["cancelled"]);
  });

  it("a run token budget: a request that cannot fit stops its job budget_exhausted, no new job starts, and the run exits 3", async () => {
    const s = await server([], ((b: Record<string, unknown>) => deterministicReply(b)) as ServerStep);
    const dir = tempDir();
    const body = `budget: {max_tokens_per_run: 300}\nmax_workers: 1\n${TWO_TRAINERS}`;
    const r = await run(["run", "--config", config(dir, s, body), "--runs-dir", dir, "--run-id", "a"]);
    expect(r.code, describeRun("run", r)).toBe(3);
    const manifest = JSON.parse(readFileSync(join(dir, "a", "meta", "manifest.json"), "utf8")) as { jobs: { trainer_id: string; status: string; skip_reason?: string }[] };
    expect(manifest.jobs.map((j) => [j.trainer_id, j.status])).toEqual([
      ["PrioritySearch", "budget_exhausted"],
      ["GEPA-Base", "not_executed"],
    ]);
    expect(manifest.jobs[1]!.skip_reason).toMatch(/^run_budget_spent: run token budget: the next request may use up to \d+ tokens, more than the \d+ left of max_tokens_per_run 300$/);
    expect(work(s).length).toBe(0); // only the preflight fit
    expect(r.stderr).toMatch(/the run's budget is spent and 1 job was not executed; to continue, raise budget\.max_tokens_per_run in /);
  });
});

describe("mode real: interruption", () => {
  it("a job timeout aborts the request in flight: the job ends timeout and the call is recorded aborted", async () => {
    const s = await server(["OK"], { reply: xmlReply({ float0: 1 }), delayMs: 30_000 });
    const dir = tempDir();
    const body = "job_timeout: 1\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 2}]\n";
    const r = await run(["run", "--config", config(dir, s, body), "--runs-dir", dir, "--run-id", "a"]);
    expect(r.code, describeRun("run", r)).toBe(1);
    expect(csvRows(join(dir, "a", "results.csv"))[0]!.status).toBe("timeout");
    const aborted = eventsOf(join(dir, "a")).filter((e) => e.type === "LlmCallAborted");
    expect(aborted.map((e) => e.data.reason)).toEqual(["job_timeout"]);
    await waitFor(() => work(s).some((q) => q.aborted));
    expect(work(s).map((q) => q.aborted)).toEqual([true]);
  });

  it("Ctrl-C before the jobs start (the LLM preflight waiting for its reply) ends the process as the signal does: at once, no run started", async () => {
    const s = await server([{ reply: "OK", delayMs: 30_000 }]);
    const dir = tempDir();
    const body = "tasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n";
    const { child, output, exited } = startRun(config(dir, s, body), dir);
    await waitFor(() => s.received.some(isPreflight));
    expect(s.received.filter(isPreflight)).toHaveLength(1);
    const sentAt = Date.now();
    child.kill("SIGINT");
    // The run code runs on a thread of its own; the main thread, which receives the signal, must
    // not hold it back while nothing in the run listens yet.
    expect(await exited, output()).toEqual({ code: null, signal: "SIGINT" });
    expect(Date.now() - sentAt).toBeLessThan(15_000);
    expect(existsSync(join(dir, "a", "events.db"))).toBe(false);
  });

  it("Ctrl-C aborts the request in flight: the server sees the connection closed and the log records the call aborted", async () => {
    const s = await server(["OK"], { reply: xmlReply({ float0: 1 }), delayMs: 30_000 });
    const dir = tempDir();
    const body = "tasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 2}]\n";
    const { child, output, exited } = startRun(config(dir, s, body), dir);
    await waitFor(() => work(s).length > 0);
    expect(work(s).length).toBe(1);
    const sentAt = Date.now();
    child.kill("SIGINT");
    const { code } = await exited;
    expect(code, output()).toBe(130);
    expect(Date.now() - sentAt).toBeLessThan(15_000); // far less than the 30 s the reply would take
    await waitFor(() => work(s)[0]!.aborted);
    expect(work(s)[0]!.aborted).toBe(true);
    const aborted = eventsOf(join(dir, "a")).filter((e) => e.type === "LlmCallAborted");
    expect(aborted).toHaveLength(1);
    expect(aborted[0]!.data.reason).toBe("cancelled");
    // The audit counts the aborted call and still agrees with results.csv and summary.json.
    const audit = await run(["tokens", join(dir, "a"), "--json"]);
    expect(audit.code, describeRun("tokens", audit)).toBe(0);
    const json = JSON.parse(audit.stdout) as { totals: { calls: { aborted: number } }; reconciliation: { reconciled: boolean } };
    expect(json.totals.calls.aborted).toBe(1);
    expect(json.reconciliation.reconciled).toBe(true);
  });
});

describe("mode real: the journal", () => {
  const body = "max_workers: 1\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 3}]\n  - id: GEPA-Base\n    params_variants: [{gepa_iters: 2}]\n";
  const outcome = (runDir: string) => ({
    // Tokens are left out: the fake server's usage counts its requests, preflights included.
    rows: csvRows(join(runDir, "results.csv")).map((row) => [row.job_id, row.status, row.score_val_initial, row.score_val_final, row.score_val, row.score_test, row.llm_calls]),
    finals: readdirSync(join(runDir, "jobs")).map((id) => readFileSync(join(runDir, "jobs", id, "artifacts", "final_state.json"), "utf8")),
  });

  // Spread from the log's start to its end.
  const killCount = repeats(10, 4);
  it(`a run killed at any of ${killCount} instants and resumed ends as the uninterrupted run, and journaled calls are never sent again`, async () => {
    const baseline = await server([], ((b: Record<string, unknown>) => deterministicReply(b)) as ServerStep);
    const dir = tempDir();
    const first = await run(["run", "--config", config(dir, baseline, body), "--runs-dir", dir, "--run-id", "whole"]);
    expect(first.code, describeRun("uninterrupted run", first)).toBe(0);
    const expected = outcome(join(dir, "whole"));
    const expectedRequests = work(baseline).map((r) => JSON.stringify(r.body)).sort();
    const lastSeq = eventsOf(join(dir, "whole")).at(-1)!.seq;
    const instants = Array.from({ length: killCount }, (_, i) => 3 + Math.floor(((lastSeq - 6) * i) / (killCount - 1)));

    let replayedSomewhere = 0;
    for (const killAt of instants) {
      const s = await server([], ((b: Record<string, unknown>) => deterministicReply(b)) as ServerStep);
      const path = config(dir, s, body);
      const id = `kill-${killAt}`;
      const killed = await run(["run", "--config", path, "--runs-dir", dir, "--run-id", id], { TRACE_BENCH_TEST_KILL_AFTER_SEQ: String(killAt) });
      expect(killed.signal, describeRun(`run killed after seq ${killAt}`, killed)).toBe("SIGKILL");
      const resumed = await run(["run", "--config", path, "--runs-dir", dir, "--run-id", id]);
      expect(resumed.code, describeRun(`resume after a kill at seq ${killAt}`, resumed)).toBe(0);
      expect(outcome(join(dir, id)), `kill at seq ${killAt}`).toEqual(expected);
      // Over both invocations the server got exactly the uninterrupted run's requests: none twice.
      expect(work(s).map((r) => JSON.stringify(r.body)).sort(), `kill at seq ${killAt}`).toEqual(expectedRequests);
      replayedSomewhere += eventsOf(join(dir, id)).filter((e) => e.type === "LlmCallCompleted" && e.data.replayed === true).length;
      const audit = await run(["tokens", join(dir, id)]);
      expect(audit.code, describeRun(`tokens after a kill at seq ${killAt}`, audit)).toBe(0);
    }
    // The instants fall inside jobs too, where the journal answers the re-run's first calls.
    expect(replayedSomewhere).toBeGreaterThan(0);
  }, 180_000);
});
