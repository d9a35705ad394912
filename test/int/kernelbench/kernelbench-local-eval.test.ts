/**
 * KernelBench's local back end without a GPU (this machine and CI have none): the probe's reason
 * skips the jobs, the local settings are checked in one line each, the worker's plumbing (engine →
 * python3 worker → one local_eval.py process per evaluation → KernelExecResult) answers with the
 * evaluator's own failure, its time limit and a stopped job; and the evaluator's logic that needs
 * no torch (request handling, the build cache's key, the shaping of results and compiler reports)
 * run in a python3 child; the suite's use of the back end is driven by the answers the worker gave
 * on an H100 (recorded by the GPU check), in place of a GPU here. What needs the GPU is checked by benchmarks/kernelbench/gpu-check.sh
 * (its H100 recording: test/unit/tasks/kernelbench-gpu-check.test.ts).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { KernelLocalEvaluator, defaultKernelCacheDir, localEvalEnv, type LocalEvaluationSettings } from "../../../adapters/tasks/kernelbench/kernel-local-eval.js";
import { bundledKernelRoot } from "../../../adapters/tasks/kernelbench/kernel-problems.js";
import type { KernelEvaluation } from "../../../adapters/tasks/kernelbench/kernel-eval-server.js";
import { KernelBenchSuite, referenceCandidate, type LocalBackEnd } from "../../../adapters/tasks/kernelbench/kernelbench-suite.js";
import { TaskUnavailableError } from "../../../src/tasks/task-errors.js";
import { REPO_ROOT, tempDir } from "../../support/cli.js";

const PYTHON_DIR = join(REPO_ROOT, "adapters", "tasks", "kernelbench", "python");
const RECORDED = JSON.parse(readFileSync(join(REPO_ROOT, "test", "fixtures", "kernelbench", "gpu-check-h100.json"), "utf8")) as { answers: { name: string; reply: { result: { metadata: Record<string, unknown> } } }[] };
const recordedResult = (name: string) => RECORDED.answers.find((answer) => answer.name === name)!.reply.result as unknown as Extract<KernelEvaluation, { status: "completed" }>["result"];
const STUB = join(REPO_ROOT, "benchmarks", "kernelbench", "stub");

/** What python3 here has: no torch (this machine, CI), torch without CUDA, or both. */
const torchHere = (() => {
  const answer = spawnSync("python3", ["-c", "import torch; print(torch.cuda.is_available())"], { encoding: "utf8" });
  return answer.status !== 0 ? "none" : answer.stdout.trim() === "True" ? "cuda" : "cpu";
})();

const reference = readFileSync(join(bundledKernelRoot(), "relu.py"), "utf8");
const settings = (overrides: Partial<LocalEvaluationSettings> = {}): LocalEvaluationSettings => ({ numCorrectTrials: 5, numPerfTrials: 100, atol: 0.01, rtol: 0.01, device: "cuda:0", timeoutS: 120, ...overrides });

const evaluators: KernelLocalEvaluator[] = [];
afterAll(() => evaluators.forEach((evaluator) => evaluator.close()));
const evaluator = () => {
  const made = new KernelLocalEvaluator(tempDir());
  evaluators.push(made);
  return made;
};

/** Runs python3 with local_eval importable; its last stdout line is JSON. */
function python(code: string): unknown {
  const result = spawnSync("python3", ["-c", `import sys, json\nsys.path.insert(0, ${JSON.stringify(PYTHON_DIR)})\nimport local_eval as le\n${code}`], { encoding: "utf8", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout.trim().split("\n").at(-1)!);
}

describe("KernelBench's local back end, where this machine cannot evaluate", () => {
  it.skipIf(torchHere === "cuda")("skips the job, saying what python3 lacks and that a server would do", async () => {
    const suite = new KernelBenchSuite(undefined, process.env);
    const loading = suite.load("kernelbench:relu", { backend: "local" });
    await expect(loading).rejects.toThrow(TaskUnavailableError);
    await expect(loading).rejects.toThrow("kernelbench:relu with eval_kwargs.backend: local needs python3 with torch, a CUDA device, nvcc and ninja on this machine: ");
    await expect(loading).rejects.toThrow(torchHere === "none" ? "python3 cannot import torch (ModuleNotFoundError: No module named 'torch')" : "sees no CUDA device");
    await expect(loading).rejects.toThrow(/; or use a KernelBench evaluation server \(eval_kwargs.server_url\)$/);
  });

  it("refuses a back end or a local setting it cannot use, in one line naming the key", async () => {
    const suite = new KernelBenchSuite(undefined, {});
    await expect(suite.load("kernelbench:relu", { backend: "gpu" })).rejects.toThrow("eval_kwargs.backend must be 'server' (an evaluation server, eval_kwargs.server_url) or 'local' (this machine's GPU), got \"gpu\"");
    await expect(suite.load("kernelbench:relu", { backend: "local", num_correct_trials: 0 })).rejects.toThrow("eval_kwargs.num_correct_trials must be a whole number of at least 1, got 0; write e.g. num_correct_trials: 5");
    await expect(suite.load("kernelbench:relu", { backend: "local", num_perf_trials: 2.5 })).rejects.toThrow("eval_kwargs.num_perf_trials must be a whole number of at least 1, got 2.5; write e.g. num_perf_trials: 100");
    await expect(suite.load("kernelbench:relu", { backend: "local", atol: -1 })).rejects.toThrow("eval_kwargs.atol must be a number of at least 0, got -1; write e.g. atol: 0.01");
    await expect(suite.load("kernelbench:relu", { backend: "local", device: "gpu0" })).rejects.toThrow("eval_kwargs.device must be a CUDA device such as cuda:0, got \"gpu0\"");
    await expect(suite.load("kernelbench:relu", { backend: "local", build_cache_dir: "" })).rejects.toThrow("eval_kwargs.build_cache_dir must be a folder, got \"\"");
  });

  it("keeps builds in the user's cache folder unless told where, and passes no secret to the worker", () => {
    expect(defaultKernelCacheDir({ XDG_CACHE_HOME: "/cache" })).toBe("/cache/trace-bench/kernelbench-builds");
    expect(defaultKernelCacheDir({ TRACE_BENCH_KERNELBENCH_CACHE: "/builds", XDG_CACHE_HOME: "/cache" })).toBe("/builds");
    const env = localEvalEnv({ PATH: "/opt/cuda/bin:/usr/bin", CUDA_HOME: "/opt/cuda", CUDA_VISIBLE_DEVICES: "1", OPENAI_API_KEY: "sk-secret", MY_TOKEN: "t" }, ["/site"]);
    expect(env).toMatchObject({ PATH: "/opt/cuda/bin:/usr/bin", CUDA_HOME: "/opt/cuda", CUDA_VISIBLE_DEVICES: "1", PYTHONPATH: "/site" });
    expect(Object.values(env)).not.toContain("sk-secret");
    expect(Object.keys(env)).not.toContain("MY_TOKEN");
  });
});

describe("the local evaluation worker", () => {
  it.skipIf(torchHere !== "none")("answers an evaluation the evaluator could not run with a failed KernelExecResult saying why", async () => {
    const evaluation = await evaluator().evaluate("class ModelNew: pass\n", reference, settings());
    expect(evaluation).toEqual({
      status: "completed",
      device: "cuda:0",
      result: { compiled: false, correctness: false, metadata: { other_error: "ModuleNotFoundError: No module named 'torch'" }, runtime: -1, runtime_stats: {} },
    });
  });

  it("stops an evaluation at its time limit with the original's timeout result, and the worker serves the next one", async () => {
    const local = evaluator();
    // A millisecond: local_eval.py cannot even start its imports in that time.
    const late = await local.evaluate("class ModelNew: pass\n", reference, settings({ timeoutS: 0.001 }));
    expect(late).toEqual({ status: "completed", device: "cuda:0", result: { compiled: false, correctness: false, metadata: { timeout_error: true, timeout_seconds: 0.001 }, runtime: -1, runtime_stats: {} } });
    const next = await local.evaluate("class ModelNew: pass\n", reference, settings({ timeoutS: 0.002 }));
    expect(next.status === "completed" && next.result.metadata.timeout_seconds).toBe(0.002);
  });

  it("a stopped job's evaluation ends with the job's own reason", async () => {
    const stop = new AbortController();
    const evaluation = evaluator().evaluate("class ModelNew: pass\n", reference, settings(), stop.signal);
    stop.abort(new Error("job timed out"));
    await expect(evaluation).rejects.toThrow("job timed out");
  });
});

describe("local_eval.py without torch", () => {
  it("fills KernelBench's defaults into a request and names the field of a bad one", () => {
    const answer = python(`
out = {"defaults": le.parse_request({"custom_cuda": "c", "ref_arch_src": "r", "cache_dir": "/b"})}
errors = []
for bad in [[], {"ref_arch_src": "r", "cache_dir": "/b"}, {"custom_cuda": "c", "ref_arch_src": "r", "cache_dir": "/b", "num_perf_trials": 0},
            {"custom_cuda": "c", "ref_arch_src": "r", "cache_dir": "/b", "num_correct_trials": True},
            {"custom_cuda": "c", "ref_arch_src": "r", "cache_dir": "/b", "rtol": "x"},
            {"custom_cuda": "c", "ref_arch_src": "r", "cache_dir": "/b", "device": "cpu"}]:
    try:
        le.parse_request(bad)
        errors.append(None)
    except le.RequestError as exc:
        errors.append(str(exc))
out["errors"] = errors
print(json.dumps(out))`) as { defaults: Record<string, unknown>; errors: (string | null)[] };
    expect(answer.defaults).toEqual({ custom_cuda: "c", ref_arch_src: "r", cache_dir: "/b", num_correct_trials: 5, num_perf_trials: 100, num_warmup: 10, seed: 42, atol: 0.01, rtol: 0.01, device: "cuda:0" });
    expect(answer.errors).toEqual([
      "a request is a JSON object, got list",
      "request.custom_cuda must be a non-empty string",
      "request.num_perf_trials must be a whole number >= 1, got 0",
      "request.num_correct_trials must be a whole number >= 1, got True",
      "request.rtol must be a number >= 0, got 'x'",
      "request.device must be a CUDA device such as cuda:0, got 'cpu'",
    ]);
  });

  it("keys the build cache by the candidate's source: the same source finds its build, another source gets its own", () => {
    const answer = python(`
a = "load_inline(name='relu', ...)\\n"
print(json.dumps([le.build_dir("/cache", a), le.build_dir("/cache", a), le.build_dir("/cache", a + " "), le.source_hash(a)]))`) as string[];
    expect(answer[0]).toBe(answer[1]);
    expect(answer[2]).not.toBe(answer[0]);
    expect(answer[0]).toBe(`/cache/${answer[3]!.slice(0, 32)}`);
    expect(answer[3]).toMatch(/^[0-9a-f]{64}$/);
  });

  it("shapes results as KernelBench does: runtime_stats to 3 significant digits, the speed-up from the unrounded means, failures in the original's words", () => {
    const answer = python(`
ok = le.exec_result(True, True, {"hardware": "H"}, 0.0394, {"mean": 0.0394})
print(json.dumps({
  "stats": le.timing_stats([0.031234, 0.04, 0.05]),
  "speedup": le.with_speedup(ok, [0.0326, 0.0326], [0.0394, 0.0394]),
  "wrong": le.with_speedup(le.exec_result(True, False, {}), [1.0], [2.0]),
  "timeout": le.failure_of_timeout(180),
  "died": le.failure_of_exit(-11, "Segmentation fault"),
}))`) as Record<string, Record<string, unknown>>;
    expect(answer.stats).toEqual({ mean: 0.0404, std: 0.00767, min: 0.0312, max: 0.05, num_trials: 3 });
    expect(answer.speedup).toEqual({ compiled: true, correctness: true, runtime: 0.0394, runtime_stats: { mean: 0.0394 }, metadata: { hardware: "H", reference_runtime: 0.0326, reference_runtime_stats: { mean: 0.0326, std: 0, min: 0.0326, max: 0.0326, num_trials: 2 }, speedup: 0.8274 } });
    expect(answer.wrong).toEqual({ compiled: true, correctness: false, metadata: {}, runtime: -1, runtime_stats: {} });
    expect(answer.timeout).toEqual({ compiled: false, correctness: false, metadata: { timeout_error: true, timeout_seconds: 180 }, runtime: -1, runtime_stats: {} });
    expect(answer.died).toEqual({ compiled: false, correctness: false, metadata: { error: "Failed to parse result. Return code: -11", return_code: -11, log_tail: "Segmentation fault" }, runtime: -1, runtime_stats: {} });
  });

  it("reports a failed build by the compiler's error lines, not ninja's command lines (the H100's own report)", () => {
    const recorded = RECORDED.answers.find((answer) => answer.name === "compile_error")!.reply.result.metadata.compilation_error as string;
    const report = python(`print(json.dumps(le.compile_report(${JSON.stringify(recorded)})))`) as string;
    const lines = report.split("\n");
    expect(lines[0]).toBe("RuntimeError: Error building extension 'trace_bench_relu_broken'");
    expect(lines[1]).toMatch(/cuda\.cu\(9\): error: identifier "undeclared_value" is undefined$/);
    expect(lines[2]).toContain("out[i] = x[i] > 0.0f ? x[i] : undeclared_value;");
    expect(report).not.toContain("-isystem");
    expect(report).not.toContain("FAILED:");
    expect(python(`print(json.dumps(le.compile_report("SyntaxError: invalid syntax (<candidate>, line 3)")))`)).toBe("SyntaxError: invalid syntax (<candidate>, line 3)");
  });

  it("refuses a bad request file in one line with exit 2", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "request.json"), JSON.stringify({ custom_cuda: "x", ref_arch_src: "y" }));
    const result = spawnSync("python3", [join(PYTHON_DIR, "local_eval.py"), "--request", join(dir, "request.json"), "--result", join(dir, "result.json")], { encoding: "utf8", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe("local_eval.py: request.cache_dir must be a non-empty string");
  });
});

describe("the suite with the local back end, answered as the H100 answered", () => {
  const CORRECT = readFileSync(join(STUB, "relu.inline_cuda.py"), "utf8");
  const WRONG = readFileSync(join(REPO_ROOT, "benchmarks", "kernelbench", "gpu-check", "relu.wrong_inline_cuda.py"), "utf8");
  const initial = referenceCandidate(reference);

  function recordedGpu() {
    const calls: { candidate: string; settings: LocalEvaluationSettings; cacheDir: string }[] = [];
    let closed = 0;
    const answers = new Map([[CORRECT, "correct_inline_cuda"], [WRONG, "incorrect_inline_cuda"], [initial, "reference_itself"]]);
    const backEnd: LocalBackEnd = {
      probe: async () => ({ problem: null, device: "NVIDIA H100 80GB HBM3", torch: "2.11.0+cu130" }),
      evaluator: (cacheDir) => ({
        evaluate: async (candidate, refArchSrc, settings) => {
          expect(refArchSrc).toBe(reference);
          calls.push({ candidate, settings, cacheDir });
          return { status: "completed", device: settings.device, result: recordedResult(answers.get(candidate)!) };
        },
        close: () => void (closed += 1),
      }),
    };
    return { backEnd, calls, closed: () => closed };
  }

  const calls = (gpu: ReturnType<typeof recordedGpu>) => gpu.calls.map((call) => call.candidate);
  const scoreOf = (bundle: Awaited<ReturnType<KernelBenchSuite["load"]>>, candidate: string) => bundle.guide.evaluate(bundle.train_dataset.inputs[0], candidate, bundle.train_dataset.infos[0], {});

  it("scores a correct kernel by the speed-up measured beside the reference, without evaluating the reference apart, and a wrong one 0", async () => {
    const gpu = recordedGpu();
    const suite = new KernelBenchSuite(undefined, {}, gpu.backEnd);
    const bundle = await suite.load("kernelbench:relu", { backend: "local", num_correct_trials: 3, num_perf_trials: 50, atol: 0.001, device: "cuda:1", timeout: 600, build_cache_dir: "/builds" });
    expect(bundle.metadata).toMatchObject({ eval_backend: "local", eval_timeout_s: 600 });
    const correct = await scoreOf(bundle, CORRECT);
    expect(correct.score).toBe(recordedResult("correct_inline_cuda").metadata.speedup);
    expect(correct.feedback).toContain("Speed-up over the reference: ");
    const wrong = await scoreOf(bundle, WRONG);
    expect(wrong.score).toBe(0);
    expect(wrong.feedback).toContain("correctness_issue: Output mismatch");
    expect(calls(gpu)).toEqual([CORRECT, WRONG]);
    expect(gpu.calls[0]).toMatchObject({ cacheDir: "/builds", settings: { numCorrectTrials: 3, numPerfTrials: 50, atol: 0.001, rtol: 0.01, device: "cuda:1", timeoutS: 600 } });
  });

  it("evaluates a candidate once per run whichever job asks, with one worker per build cache, closed with the suite", async () => {
    const gpu = recordedGpu();
    const suite = new KernelBenchSuite(undefined, {}, gpu.backEnd);
    const first = await suite.load("kernelbench:relu", { backend: "local" });
    const second = await suite.load("kernelbench:relu", { backend: "local" });
    const scores = await Promise.all([scoreOf(first, initial), scoreOf(second, initial), scoreOf(first, CORRECT)]);
    expect(scores[0]).toEqual(scores[1]);
    expect(scores[0]!.score).toBe(recordedResult("reference_itself").metadata.speedup);
    expect(calls(gpu)).toEqual([initial, CORRECT]);
    expect(new Set(gpu.calls.map((call) => call.cacheDir)).size).toBe(1);
    suite.close();
    expect(gpu.closed()).toBe(1);
  });
});
