/**
 * The Terminal-Bench suite's real mode against a stand-in `harbor` first on PATH (a real child
 * process that checks its arguments and writes the files Harbor writes): a pass, a fail, the
 * original's compatibility retry, a timeout, a stopped job, a missing tool and a malformed result
 * file; Harbor's command, output, results and trajectory kept under the artifacts folder.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_TERMINUS2_TEMPLATE } from "../../../adapters/tasks/terminal_bench/terminus2-template.js";
import { TerminalBenchSuite } from "../../../adapters/tasks/terminal_bench/terminal-bench-suite.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import type { TaskCallContext } from "../../../src/domain/task-call-context.js";
import { TaskUnavailableError } from "../../../src/tasks/task-errors.js";
import { tempDir } from "../../support/cli.js";
import { harborStandIn, type HarborBehaviour } from "../../support/harbor-stand-in.js";

const TRAJECTORY = {
  steps: [
    { role: "assistant", content: "Plan: list files, then run tests.", tool_calls: [{ name: "bash", args: { cmd: "ls -la" } }] },
    { role: "tool", content: "file1\nfile2\n" },
  ],
  final_metrics: { total_prompt_tokens: 120 },
};

const systemPath = `${dirname(process.execPath)}:/usr/bin:/bin`;

function suiteWith(bin: string | null, env: NodeJS.ProcessEnv = {}): TerminalBenchSuite {
  const suite = new TerminalBenchSuite({ PATH: bin === null ? systemPath : `${bin}:${systemPath}`, HOME: tempDir(), OPENAI_API_KEY: "sk-the-engines-real-key", SECRET_OF_THE_ENGINE: "hunter2", ...env });
  suite.configure({ mode: "real" });
  return suite;
}

const kwargs = (artifacts: string, extra: Record<string, unknown> = {}) => ({ harbor_model: "openai/gpt-4o-mini", harbor_env: "docker", harbor_artifacts_dir: artifacts, ...extra });

async function evaluate(bundle: TaskBundle, context: TaskCallContext = {}) {
  return bundle.guide.evaluate(bundle.train_dataset.inputs[0], DEFAULT_TERMINUS2_TEMPLATE, null, context);
}

async function withHarbor(behaviour: HarborBehaviour, extra: Record<string, unknown> = {}) {
  const harbor = harborStandIn(behaviour);
  const artifacts = tempDir();
  const logged: string[] = [];
  const bundle = await suiteWith(harbor.bin).load("terminal_bench:regex-log", kwargs(artifacts, extra));
  return { harbor, artifacts, bundle, logged, context: { log: (text: string) => logged.push(text) } };
}

describe("terminal_bench real mode with a stand-in harbor", () => {
  it("a passing trial scores 1 with the trajectory in the feedback, Harbor's files kept and no secret passed", async () => {
    const { harbor, artifacts, bundle, logged, context } = await withHarbor({
      outcome: "results",
      jobResult: JSON.stringify({ stats: { n_errored_trials: 0 } }),
      trialResult: JSON.stringify({ verifier_result: { rewards: { reward: 1.0 } } }),
      trajectory: TRAJECTORY,
    });
    const result = await evaluate(bundle, context);
    expect(result.score).toBe(1);
    expect(result.feedback.startsWith("terminal_bench task=regex-log score=1.0 env=docker \nATIF: steps=2\n[0] assistant: Plan: list files, then run tests.\n    tool_call: bash\n[1] tool: file1 file2 ")).toBe(true);

    const [call] = harbor.calls();
    const tb = join(artifacts, "terminal_bench");
    const jobName = call!.args[call!.args.indexOf("--job-name") + 1]!;
    expect(jobName).toMatch(/^tracebench-[0-9a-f]{12}-eval0001$/);
    expect(call!.args).toEqual([
      "run", "--job-name", jobName, "--jobs-dir", join(tb, "harbor_jobs"),
      "--dataset", "terminal-bench@2.0", "--task-name", "regex-log", "--n-tasks", "1",
      "--model", "openai/gpt-4o-mini", "--agent-import-path", "trace_bench_terminus2:TraceBenchTerminus2",
      "--agent-kwarg", `prompt_template_path=${join(tb, `${jobName}.prompt_template.txt`)}`,
      "--env", "docker", "--n-concurrent", "1", "--quiet",
    ]);
    // The agent Harbor imports ships with trace-bench; the engine's key and other variables stay behind.
    expect(existsSync(join(call!.env.PYTHONPATH!, "trace_bench_terminus2.py"))).toBe(true);
    expect(call!.env.OPENAI_API_KEY).toBeNull();
    expect(call!.env.SECRET_OF_THE_ENGINE).toBeNull();

    expect(readFileSync(join(tb, `${jobName}.prompt_template.txt`), "utf8")).toBe(DEFAULT_TERMINUS2_TEMPLATE);
    expect(readFileSync(join(tb, `${jobName}.cmd.txt`), "utf8")).toBe(["harbor", ...call!.args].join(" "));
    expect(readFileSync(join(tb, `${jobName}.stdout.txt`), "utf8")).toBe("1/1 trials done\n");
    expect(JSON.parse(readFileSync(join(tb, `${jobName}.trial_result.json`), "utf8"))).toEqual({ verifier_result: { rewards: { reward: 1 } } });
    expect(JSON.parse(readFileSync(join(tb, `${jobName}.trajectory.json`), "utf8"))).toEqual(TRAJECTORY);
    const traceLike = JSON.parse(readFileSync(join(tb, `${jobName}.trajectory_trace.json`), "utf8"));
    expect(traceLike).toMatchObject({ format: "trace_bench.atif.v1", n_steps: 2, final_metrics: { total_prompt_tokens: 120 } });
    expect(traceLike.events[0].tool_calls).toEqual([{ name: "bash", args: { cmd: "ls -la" }, id: null }]);
    expect(logged.join("")).toContain(`harbor run --job-name ${jobName}`);
  });

  it("a failing trial scores 0 and its exception is told; the next evaluation is a new Harbor job", async () => {
    const { harbor, bundle } = await withHarbor(
      {
        outcome: "results",
        jobResult: JSON.stringify({ stats: { n_errored_trials: 1 } }),
        trialResult: JSON.stringify({ reward: false, exception_info: { exception_type: "AgentTimeoutError" } }),
      },
      { harbor_agent_kwargs: { max_turns: 3, parser_name: "json" } },
    );
    const first = await evaluate(bundle);
    expect(first.score).toBe(0);
    expect(first.feedback).toBe("terminal_bench task=regex-log score=0.0 env=docker harbor_status=failed (the trial raised AgentTimeoutError)");
    await evaluate(bundle);
    const calls = harbor.calls().map((c) => c.args.join(" "));
    expect(calls[0]).toContain("--agent-kwarg max_turns=3 --agent-kwarg parser_name=json --agent-kwarg prompt_template_path=");
    expect(calls[0]).toMatch(/eval0001/);
    expect(calls[1]).toMatch(/eval0002/);
  });

  it("an older Harbor without --task-name is retried with --include-task-name", async () => {
    const { harbor, bundle } = await withHarbor({ outcome: "results", onlyIncludeTaskName: true, jobResult: JSON.stringify({ score: 1 }) });
    expect((await evaluate(bundle)).score).toBe(1);
    const [first, second] = harbor.calls();
    expect(first!.args).toContain("--task-name");
    expect(second!.args).toContain("--include-task-name");
    expect(second!.args).not.toContain("--task-name");
  });

  it("a Harbor that fails is the evaluation's error, after the original's two retries", async () => {
    const { harbor, artifacts, bundle } = await withHarbor({ outcome: { exitCode: 3, stderr: "docker: Cannot connect to the Docker daemon" } });
    await expect(evaluate(bundle)).rejects.toThrow(/^harbor run exited with code 3: docker: Cannot connect to the Docker daemon \(command and output in /);
    const calls = harbor.calls().map((c) => c.args);
    expect(calls).toHaveLength(3);
    const third = calls[2]!;
    expect(third[third.indexOf("--job-name") + 1]).toMatch(/-retry1$/);
    expect(third.join(" ")).toContain("--agent TraceBenchTerminus2 --model openai/gpt-4o-mini --agent-import-path trace_bench_terminus2 ");
    expect(existsSync(join(artifacts, "terminal_bench"))).toBe(true);
  });

  it("a Harbor that runs past harbor_cli_timeout_seconds is killed and the evaluation fails saying so", async () => {
    const { bundle } = await withHarbor({ outcome: "hang" }, { harbor_cli_timeout_seconds: 1 });
    await expect(evaluate(bundle)).rejects.toThrow(/^harbor run timed out after 1 s \(eval_kwargs\.harbor_cli_timeout_seconds\)/);
  });

  it("a stopped job stops Harbor", async () => {
    const { bundle } = await withHarbor({ outcome: "hang" });
    const stop = new AbortController();
    const running = evaluate(bundle, { signal: stop.signal });
    stop.abort(new Error("job interrupted"));
    await expect(running).rejects.toThrow();
  });

  it("a malformed result.json is the evaluation's error, naming the file", async () => {
    const { bundle } = await withHarbor({ outcome: "results", jobResult: "{not json", trialResult: JSON.stringify({ reward: 1 }) });
    await expect(evaluate(bundle)).rejects.toThrow(/result\.json is not a JSON object; cannot read the score$/);
  });

  it("without harbor on PATH the job is skipped, saying how to install it; a missing model is a one-line error", async () => {
    const suite = suiteWith(null);
    expect(() => suite.load("terminal_bench:regex-log", kwargs(tempDir()))).toThrow(TaskUnavailableError);
    expect(() => suite.load("terminal_bench:regex-log", kwargs(tempDir()))).toThrow(/needs the Harbor CLI \('harbor' is not on PATH\)/);
    expect(() => suite.load("terminal_bench:regex-log", { harbor_env: "docker" })).toThrow("terminal_bench:regex-log in mode real needs a Harbor model: set eval_kwargs.harbor_model (e.g. openai/gpt-4o-mini) or HARBOR_MODEL");
  });
});
