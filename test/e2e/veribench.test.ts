/**
 * The VeriBench suite through the built CLI: `list-tasks` from data and without it, the original's
 * placeholder validating as [SKIP], the original's two configs (test/fixtures/configs/original/)
 * validating with the original's job ids (computed with python3's hashlib and
 * json.dumps(sort_keys=True) from the resolved kwargs of spec §3.2) and running in mode stub, the
 * translator agent in mode real against a scripted server with the Lean compiler guide on a
 * stand-in `lean` (errors, then a fix; a timeout), and in mode stub next to a missing toolchain.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { fakeOpenAiServers, type ReceivedRequest } from "../support/fake-openai-server.js";
import { csvRows, eventsOf } from "../support/run-dir.js";
import { VERIBENCH_IDS, writeVeribenchJsonl } from "../support/veribench-data.js";

const ORIGINAL = join(REPO_ROOT, "test", "fixtures", "configs", "original");
const SMOKE = join(ORIGINAL, "m2_veribench_smoke.yaml");
const COVERAGE = join(ORIGINAL, "m2_veribench_coverage.yaml");
const LEAN_BIN = join(REPO_ROOT, "test", "fixtures", "lean", "bin");
const KEY = "sk-veribench-test-key";
const server = fakeOpenAiServers();

/** python3: sha256(json.dumps({task_id, trainer_id, resolved_kwargs, seed}, sort_keys=True))[:12]. */
const SMOKE_IDS: Record<string, string> = {
  "internal:numeric_param": "4c65880b9652",
  "trace_examples:opentrace_greeting": "1b3240226d36",
  "veribench:binary_search": "595a22ec6bee",
  "veribench:bubble_sort": "caf03d469f60",
  "veribench:insertion_sort": "abc2c3124518",
};
const COVERAGE_IDS: Record<string, string> = {
  "veribench:smoke_placeholder": "71d24bdecdbb",
  "veribench:binary_search": "ab0c0c3b5ae7",
  "veribench:bubble_sort": "3d92d1b0858d",
  "veribench:insertion_sort": "f05474714886",
  "veribench:task_4": "681d89ef3b33",
};

/** No data, no real hub cache, no Lean of this machine. */
const noData = (dir: string): NodeJS.ProcessEnv => ({ ...process.env, TRACE_BENCH_VERIBENCH_DATA: "", HF_HUB_CACHE: join(dir, "empty-hub"), OPENAI_API_KEY: "" });
const withData = (dir: string): NodeJS.ProcessEnv => ({ ...noData(dir), TRACE_BENCH_VERIBENCH_DATA: writeVeribenchJsonl(join(dir, "veribench.jsonl")) });
const jobIds = (stdout: string) => [...stdout.matchAll(/^ {2}job ([0-9a-f]{12}): (\S+) x /gm)].map((m) => [m[2], m[1]]);

/** trace_examples:opentrace_greeting arrives with another change; until then the smoke config runs without it. */
const hasGreeting = async () => (await runCli(["list-tasks", "--bench", "trace_examples"])).stdout.includes("trace_examples:opentrace_greeting");

const runAsync = (args: readonly string[], env: NodeJS.ProcessEnv) => runCliAsync(args, { cwd: REPO_ROOT, env, timeoutMs: 240_000 });

describe("veribench: listing and validating", () => {
  it("list-tasks --bench veribench: the data's tasks, else the placeholder alone", async () => {
    const dir = tempDir();
    const listed = await runCli(["list-tasks", "--bench", "veribench"], { env: withData(dir) });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toBe(`${VERIBENCH_IDS.join("\n")}\n`);
    const none = await runCli(["list-tasks", "--bench", "veribench"], { env: noData(dir) });
    expect(none.stdout).toBe("veribench:smoke_placeholder\n");
  });

  it("validating the placeholder (the original's m1 test) prints [SKIP] with the original's reason and exits 0", async () => {
    const dir = tempDir();
    const config = join(dir, "veribench.yaml");
    writeFileSync(config, "tasks:\n  - id: veribench:smoke_placeholder\n");
    const r = await runCli(["validate", "--config", config, "--bench", "veribench"], { env: noData(dir) });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("[SKIP] veribench:smoke_placeholder: veribench_unavailable: entrypoint not available (install Veribench or provide task list); no VeriBench data on this machine");
  });

  it("m2_veribench_smoke.yaml validates with the original's 5 job ids, in matrix order", async () => {
    const dir = tempDir();
    const r = await runCli(["validate", "--strict", "--config", SMOKE, "--runs-dir", dir], { env: withData(dir) });
    expect(jobIds(r.stdout)).toEqual(Object.entries(SMOKE_IDS));
    for (const id of ["internal:numeric_param", "veribench:binary_search", "veribench:bubble_sort", "veribench:insertion_sort"]) expect(r.stdout).toContain(`[OK] ${id}\n`);
    if (await hasGreeting()) expect(r.code, r.stdout).toBe(0);
  });

  it("m2_veribench_coverage.yaml: veribench:all stands for the data's tasks, else the placeholder, with the original's ids", async () => {
    const dir = tempDir();
    const withRows = await runCli(["validate", "--strict", "--config", COVERAGE, "--runs-dir", dir], { env: { ...withData(dir), OPENAI_API_KEY: "not-used" } });
    expect(withRows.code, withRows.stdout + withRows.stderr).toBe(0);
    expect(jobIds(withRows.stdout)).toEqual(Object.entries(COVERAGE_IDS).slice(1));
    const without = await runCli(["validate", "--strict", "--config", COVERAGE, "--runs-dir", dir], { env: { ...noData(dir), OPENAI_API_KEY: "not-used" } });
    expect(without.code, without.stdout + without.stderr).toBe(0);
    expect(jobIds(without.stdout)).toEqual(Object.entries(COVERAGE_IDS).slice(0, 1));
    expect(without.stdout).toContain("[SKIP] veribench:smoke_placeholder: veribench_unavailable: entrypoint not available");
  });
});

describe("veribench: the original's configs in mode stub", () => {
  it("m2_veribench_smoke.yaml runs: the VeriBench jobs are ok under the original's ids, scored by the keyword guide from the placeholder's 0", async () => {
    const dir = tempDir();
    let config = SMOKE;
    if (!(await hasGreeting())) {
      config = join(dir, "smoke.yaml");
      writeFileSync(config, readFileSync(SMOKE, "utf8").replace("  - id: trace_examples:opentrace_greeting\n", ""));
    }
    const r = await runAsync(["run", "--config", config, "--runs-dir", dir, "--run-id", "smoke"], withData(dir));
    expect(r.code, describeRun("run", r)).toBe(0);
    const rows = csvRows(join(dir, "smoke", "results.csv"));
    for (const task of ["veribench:binary_search", "veribench:bubble_sort", "veribench:insertion_sort"]) {
      const row = rows.find((x) => x.task_id === task);
      expect(row, task).toBeDefined();
      expect(row!.job_id).toBe(SMOKE_IDS[task]);
      expect(row!.status, row!.feedback).toBe("ok");
      expect(row!.suite).toBe("veribench");
      expect(Number(row!.score_val_initial)).toBe(0);
    }
  });

  it("m2_veribench_coverage.yaml without data: its one job (the placeholder) is skipped with the original's reason", async () => {
    const dir = tempDir();
    // The original runs it in mode real; here in mode stub (the only change), so no model is needed.
    const config = join(dir, "coverage.yaml");
    writeFileSync(config, readFileSync(COVERAGE, "utf8").replace(/^mode: real$/m, "mode: stub"));
    const r = await runAsync(["run", "--config", config, "--runs-dir", dir, "--run-id", "coverage"], noData(dir));
    expect(r.code, describeRun("run", r)).toBe(0);
    const rows = csvRows(join(dir, "coverage", "results.csv"));
    expect(rows.map((x) => [x.job_id, x.status])).toEqual([["71d24bdecdbb", "skipped"]]);
    expect(rows[0]!.feedback).toContain("veribench_unavailable: entrypoint not available (install Veribench or provide task list)");
  });
});

const userText = (r: ReceivedRequest) => JSON.stringify(r.body.messages);
const isAgent = (r: ReceivedRequest) => userText(r).includes("You translate Python programs into Lean 4");
const isPreflight = (r: ReceivedRequest) => userText(r).includes("Reply with the word OK.");

/** The translator's replies: bubble_sort's never ends compiling; binary_search's compiles once told to define every function. */
function agentReply(body: Record<string, unknown>, pidFile: string): string | null {
  const asked = JSON.stringify(body.messages);
  if (!asked.includes("You translate Python programs into Lean 4")) return null;
  if (asked.includes("def bubble_sort")) return `Here:\n\`\`\`lean\ndef sortList (xs : List Nat) : List Nat := xs\n-- stand-in: hang ${pidFile}\n\`\`\``;
  if (asked.includes("Define every function you use.")) return "```lean\ndef search (xs : List Nat) (t : Nat) : Int := -1\n\ntheorem search_nil : search [] 0 = -1 := by rfl\n```";
  return "```lean\ndef search (xs : List Nat) (t : Nat) : Int := unknown_fn xs t\n```";
}
function optimizerReply(body: Record<string, unknown>): string | null {
  const prompt = (body.messages as { content: string }[]).map((m) => m.content).join("\n");
  const current = /<(?:variable|solution) name="additional_instructions" type="str">\s*<value>\n([\s\S]*?)\n<\/value>/.exec(prompt)?.[1];
  if (current === undefined) return null;
  return `<reasoning>The code calls a function it never defines.</reasoning>\n<variable>\n<name>additional_instructions</name>\n<value>\nDefine every function you use. ${current}\n</value>\n</variable>`;
}

describe("veribench: the translator agent and the Lean compiler guide", () => {
  it("mode real: the agent's calls are audited (role agent, tokens --by role); Lean's errors score 0 and the fixed translation 1; a compile past the limit scores 0", async () => {
    const dir = tempDir();
    const pidFile = join(dir, "sleeper.pid");
    const s = await server([], { fallback: (body) => optimizerReply(body) ?? agentReply(body, pidFile) ?? "TERMINATE" });
    const data = writeVeribenchJsonl(join(dir, "rows.jsonl"));
    const config = join(dir, "real.yaml");
    writeFileSync(
      config,
      [
        "mode: real",
        `llm: {model: test-model, base_url: "${s.baseURL}", api_key_env: FAKE_KEY}`,
        "pricing: {test-model: {input: 2, output: 10}}",
        "seeds: [5]",
        "tasks:",
        `  - id: veribench:binary_search\n    eval_kwargs: {agent: translator, guide: lean, data: ${JSON.stringify(data)}}`,
        `  - id: veribench:bubble_sort\n    eval_kwargs: {agent: translator, guide: lean, timeout_seconds: 1, data: ${JSON.stringify(data)}}`,
        "trainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1}]",
        "",
      ].join("\n"),
    );
    const env = { ...noData(dir), FAKE_KEY: KEY, PATH: `${LEAN_BIN}${delimiter}${process.env.PATH ?? ""}` };
    const r = await runAsync(["run", "--config", config, "--runs-dir", dir, "--run-id", "real"], env);
    expect(r.code, describeRun("run", r)).toBe(0);
    const runDir = join(dir, "real");
    const rows = csvRows(join(runDir, "results.csv"));
    const search = rows.find((x) => x.task_id === "veribench:binary_search")!;
    expect(search.status, search.feedback).toBe("ok");
    expect(Number(search.score_val_initial)).toBe(0);
    expect(Number(search.score_val)).toBe(1);
    const sorting = rows.find((x) => x.task_id === "veribench:bubble_sort")!;
    expect(sorting.status, sorting.feedback).toBe("ok");
    expect(Number(sorting.score_val)).toBe(0);

    const events = eventsOf(runDir);
    const feedbacks = JSON.stringify(events.filter((e) => e.type === "EvaluationCompleted").map((e) => e.data));
    expect(feedbacks).toContain("unknown identifier 'unknown_fn'");
    expect(feedbacks).toContain("did not finish within 1 s (TimeoutError)");
    const agentRequests = s.received.filter((q) => !isPreflight(q) && isAgent(q));
    expect(agentRequests.length).toBeGreaterThanOrEqual(2);
    expect(events.filter((e) => e.type === "LlmCallStarted" && e.data.role === "agent")).toHaveLength(agentRequests.length);
    for (const q of s.received) expect(q.authorization).toBe(`Bearer ${KEY}`);

    const audit = await runAsync(["tokens", runDir, "--by", "role", "--json"], env);
    expect(audit.code, describeRun("tokens", audit)).toBe(0);
    const groups = (JSON.parse(audit.stdout) as { groups: { key: string; calls: { completed: number } }[] }).groups;
    expect(groups.find((g) => g.key === "agent")?.calls.completed).toBe(agentRequests.length);
  }, 300_000);

  it("mode stub: the translator's calls are recorded with role agent; guide: lean with no Lean on PATH skips its job, saying how to install Lean", async () => {
    const dir = tempDir();
    const config = join(dir, "stub.yaml");
    writeFileSync(
      config,
      "mode: stub\nseeds: [5]\ntasks:\n  - id: veribench:binary_search\n    eval_kwargs: {agent: translator}\n  - id: veribench:bubble_sort\n    eval_kwargs: {guide: lean}\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1}]\n",
    );
    const env = { ...withData(dir), PATH: join(dir, "no-lean-here") };
    const r = await runAsync(["run", "--config", config, "--runs-dir", dir, "--run-id", "stub"], env);
    expect(r.code, describeRun("run", r)).toBe(0);
    const rows = csvRows(join(dir, "stub", "results.csv"));
    const translated = rows.find((x) => x.task_id === "veribench:binary_search")!;
    expect(translated.status, translated.feedback).toBe("ok");
    expect(eventsOf(join(dir, "stub")).filter((e) => e.type === "LlmCallStarted" && e.data.role === "agent").length).toBeGreaterThan(0);
    const skipped = rows.find((x) => x.task_id === "veribench:bubble_sort")!;
    expect(skipped.status).toBe("skipped");
    expect(skipped.feedback).toContain("neither 'lean' nor 'lake' is on PATH");
    expect(skipped.feedback).toContain("elan");
  });
});
