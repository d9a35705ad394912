/**
 * The Terminal-Bench suite's pure parts, on the original's test shapes: Harbor's argument list,
 * the score read from result.json, the ATIF reader, the environment's allowlist and LLM seam,
 * the slug check and stub mode.
 */
import { describe, expect, it } from "vitest";
import { atifFeedbackSnippet, atifSteps, atifToTraceLike } from "../../../../adapters/tasks/terminal_bench/atif.js";
import { harborArgs } from "../../../../adapters/tasks/terminal_bench/harbor-command.js";
import { harborEnv, harborLlmEnv } from "../../../../adapters/tasks/terminal_bench/harbor-env.js";
import { harborScore } from "../../../../adapters/tasks/terminal_bench/harbor-results.js";
import { isSafeSlug, TerminalBenchSuite } from "../../../../adapters/tasks/terminal_bench/terminal-bench-suite.js";
import { TaskNotFoundError } from "../../../../src/tasks/task-errors.js";

const base = { jobName: "job", jobsDir: "/jobs", model: "m", env: "daytona", taskName: "regex-log" };

describe("harbor run arguments", () => {
  it("need exactly one of a dataset and a task path", () => {
    expect(() => harborArgs(base)).toThrow(/exactly one/);
    expect(() => harborArgs({ ...base, dataset: "terminal-bench@2.0", taskPath: "/t" })).toThrow(/exactly one/);
  });

  it("a local task path replaces the dataset's task selection; --quiet can be left off", () => {
    const args = harborArgs({ ...base, taskPath: "/tasks/t", quiet: false });
    expect(args.slice(5, 7)).toEqual(["--path", "/tasks/t"]);
    expect(args).not.toContain("--task-name");
    expect(args).not.toContain("--quiet");
  });

  it("agent kwargs are passed as Python writes their values", () => {
    const joined = harborArgs({ ...base, dataset: "terminal-bench@2.0", agentKwargs: { max_turns: 3, parser_name: "json", strict: true } }).join(" ");
    expect(joined).toContain("--agent-kwarg max_turns=3 --agent-kwarg parser_name=json --agent-kwarg strict=True");
  });
});

describe("harbor score", () => {
  it("reads the trial before the job, the first value that reads as a score", () => {
    expect(harborScore({ score: 0.25 }, { resolved: true })).toBe(1);
    expect(harborScore({ score: 1 }, { reward: "failed" })).toBe(0);
    expect(harborScore({ summary: { reward: "0.5" } }, { success: "maybe" })).toBe(0.5);
    expect(harborScore({}, {})).toBe(0);
  });

  it("falls back to the verifier's reward, where current Harbor keeps it", () => {
    expect(harborScore({ stats: { n_errored_trials: 0 } }, { verifier_result: { rewards: { reward: 1.0 } } })).toBe(1);
    expect(harborScore({ ok: false }, { verifier_result: { rewards: { reward: 1.0 } } })).toBe(0);
  });
});

describe("ATIF", () => {
  const payload = {
    steps: [
      { role: "assistant", content: "Plan: list files, then run tests.", tool_calls: [{ name: "bash", args: { cmd: "ls -la" } }] },
      { role: "tool", content: "file1\nfile2\n" },
    ],
  };

  it("summarizes and converts the steps as the original's helpers do", () => {
    expect(atifSteps(payload)).toHaveLength(2);
    expect(atifSteps({ trajectory: { steps: [{ type: "user" }, "noise"] } })).toEqual([{ type: "user" }]);
    const traceLike = atifToTraceLike(payload, 10);
    expect(traceLike.format).toBe("trace_bench.atif.v1");
    expect(traceLike.n_steps).toBe(2);
    expect(traceLike.events).toHaveLength(2);
    expect(atifToTraceLike(payload, 1).events).toEqual([{ i: 0, role: "tool", content: "file1\nfile2\n", tool_calls: [], observation: null, timestamp: null }]);
  });

  it("writes a snippet with global step numbers, long contents cut at 280 characters", () => {
    expect(atifFeedbackSnippet(payload, 2000, 1)).toBe("ATIF: steps=2\n[1] tool: file1 file2 ");
    const long = atifFeedbackSnippet({ steps: [{ content: "x".repeat(300) }] });
    expect(long).toBe(`ATIF: steps=1\n[0] ?: ${"x".repeat(280)}…`);
    expect(atifFeedbackSnippet(payload, 10)).toBe("ATIF: ste…");
  });
});

describe("harbor environment", () => {
  const parent = { PATH: "/bin", HOME: "/home/u", OPENAI_API_KEY: "sk-real", AWS_SECRET_ACCESS_KEY: "s", DAYTONA_API_KEY: "dtn" };

  it("copies only the allowlist; Daytona's key only for --env daytona", () => {
    const docker = harborEnv(parent, { sandbox: "docker", agentDir: "/agent", endpoint: null, extra: {} });
    expect(docker).toEqual({ PATH: "/bin", HOME: "/home/u", PYTHONPATH: "/agent" });
    expect(harborEnv(parent, { sandbox: "daytona", agentDir: "/agent", endpoint: null, extra: { X: "1" } })).toEqual({ PATH: "/bin", HOME: "/home/u", DAYTONA_API_KEY: "dtn", PYTHONPATH: "/agent", X: "1" });
  });

  it("points Harbor's LLM calls at the endpoint it is given", () => {
    expect(harborLlmEnv(null)).toEqual({});
    const env = harborEnv(parent, { sandbox: "docker", agentDir: "/agent", endpoint: { baseUrl: "http://127.0.0.1:9/v1", apiKey: "job-token" }, extra: {} });
    expect(env).toMatchObject({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API_BASE: "http://127.0.0.1:9/v1", OPENAI_API_KEY: "job-token" });
  });
});

describe("terminal_bench suite", () => {
  it("lists the original's four sample slugs and accepts any safe slug, never a path", () => {
    const suite = new TerminalBenchSuite({});
    expect(suite.list()).toEqual(["terminal_bench:regex-log", "terminal_bench:log-summary-date-ranges", "terminal_bench:multi-source-data-merger", "terminal_bench:financial-document-processor"]);
    expect(suite.knows("terminal_bench:my-own.task_2")).toBe(true);
    for (const bad of ["../etc", "a/b", "a..b", "", ".hidden", "a\\b"]) expect(isSafeSlug(bad), bad).toBe(false);
    expect(() => suite.load("terminal_bench:../../etc", {})).toThrow(TaskNotFoundError);
  });

  it("in mode stub never needs Harbor and scores as the original's stub", async () => {
    const suite = new TerminalBenchSuite({ PATH: "" });
    suite.configure({ mode: "stub" });
    const bundle = await suite.load("terminal_bench:regex-log", {});
    expect(bundle.metadata).toEqual({ benchmark: "terminal_bench", entry: "regex-log" });
    expect(bundle.train_dataset).toEqual({ inputs: ["regex-log"], infos: [null] });
    expect(bundle.optimizer_kwargs).toEqual({ objective: "Optimize the Terminus-2 prompt template to solve the given Terminal-Bench task with minimal errors and maximal success.", memory_size: 5 });
    const template = String(await bundle.agent.run("regex-log", { prompt_template: bundle.parameters[0]!.value }, {}));
    expect(template).toContain("{instruction}");
    expect(template).toContain("{terminal_state}");
    expect(template).toContain('{{"keystrokes": "ls -la\n", "duration": 0.1}}');
    expect(await bundle.guide.evaluate("regex-log", template, null, {})).toEqual({ score: 0, feedback: "STUB: terminal_bench task=regex-log (harbor not invoked)" });
  });

  it("without the run's mode, TRACE_BENCH_MODE and then eval_kwargs.mode decide, as in the original", async () => {
    expect((await new TerminalBenchSuite({ TRACE_BENCH_MODE: "stub", PATH: "" }).load("terminal_bench:x", {})).guide.name).toBe("terminal_bench.TerminalBenchGuide");
    expect(() => new TerminalBenchSuite({ PATH: "" }).load("terminal_bench:x", { mode: "stub" })).not.toThrow();
    expect(() => new TerminalBenchSuite({ PATH: "" }).load("terminal_bench:x", {})).toThrow(/needs a Harbor model/);
  });
});
