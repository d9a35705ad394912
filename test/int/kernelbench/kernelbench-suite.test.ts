/**
 * The KernelBench suite against a stand-in of the original's evaluation server on 127.0.0.1:
 * problem discovery (shipped, or a checkout given as `--root`), the server protocol (queued,
 * running, completed or failed; broken servers said in one line; a stopped job stops polling),
 * and the guide's scores (speed-up over the reference, measured by the same server).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KernelEvalServer, KernelServerError } from "../../../adapters/tasks/kernelbench/kernel-eval-server.js";
import { bundledKernelRoot, discoverKernelProblems } from "../../../adapters/tasks/kernelbench/kernel-problems.js";
import { KERNEL_SERVER_VARIABLE, KernelBenchSuite, referenceCandidate } from "../../../adapters/tasks/kernelbench/kernelbench-suite.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { TaskNotFoundError, TaskUnavailableError } from "../../../src/tasks/task-errors.js";
import { tempDir } from "../../support/cli.js";
import { execResult, kernelEvalStandIns, type SubmittedEvaluation } from "../../support/kernel-eval-stand-in.js";

const standIn = kernelEvalStandIns();
const FAST = "# fast candidate\nclass ModelNew: pass\n";
const BROKEN = "# does not compile\nclass ModelNew: pass\n";

/** Reference runs 2 ms; FAST 0.5 ms; BROKEN does not compile. */
const verdict = (request: SubmittedEvaluation) =>
  request.custom_cuda === FAST
    ? { result: execResult({ compiled: true, correctness: true, runtime: 0.5 }) }
    : request.custom_cuda === BROKEN
      ? { result: execResult({ compiled: false, correctness: false, metadata: { compilation_error: "nvcc: error: expected a ';'" } }) }
      : { result: execResult({ compiled: true, correctness: true, runtime: 2 }) };

function checkout(): string {
  const root = tempDir();
  for (const [level, files] of [
    ["level2", ["2_ConvTranspose2d_BiasAdd.py"]],
    ["level1", ["19_ReLU.py", "1_Square_matrix_multiplication_.py", "notes.txt"]],
  ] as const) {
    mkdirSync(join(root, "KernelBench", level), { recursive: true });
    for (const file of files) writeFileSync(join(root, "KernelBench", level, file), "class Model: pass\n");
  }
  return root;
}

const scoreOf = (bundle: TaskBundle, candidate: string, signal?: AbortSignal) =>
  bundle.guide.evaluate(bundle.train_dataset.inputs[0], candidate, bundle.train_dataset.infos[0], signal ? { signal } : {});

describe("KernelBench problems", () => {
  it("lists the problems shipped with trace-bench when no checkout is given", () => {
    const listing = discoverKernelProblems();
    expect(listing.fromCheckout).toBe(false);
    expect(listing.problems.map((p) => [p.taskId, p.problemId, p.level])).toEqual([
      ["kernelbench:relu", 1, 1],
      ["kernelbench:softmax", 2, 1],
      ["kernelbench:square_matmul", 3, 1],
    ]);
  });

  it("lists a checkout's problems by level and number, as the original names its preset problems, and only its numbered .py files", () => {
    const listing = discoverKernelProblems(checkout());
    expect(listing.fromCheckout).toBe(true);
    expect(listing.problems.map((p) => [p.taskId, p.name, p.problemId, p.level])).toEqual([
      ["kernelbench:level1_problem1", "1_Square_matrix_multiplication_", 1, 1],
      ["kernelbench:level1_problem19", "19_ReLU", 19, 1],
      ["kernelbench:level2_problem2", "2_ConvTranspose2d_BiasAdd", 2, 2],
    ]);
  });

  it("a root that is not a checkout (an LLM4AD tasks root) leaves the shipped problems listed", () => {
    expect(discoverKernelProblems(tempDir()).fromCheckout).toBe(false);
  });
});

describe("the evaluation server protocol", () => {
  it("submits the candidate and the reference with the original's field names, and polls until the job is done", async () => {
    const server = await standIn({ verdict, pollsBeforeDone: 2 });
    const client = new KernelEvalServer(server.url, { pollIntervalMs: 1 });
    const evaluation = await client.evaluate({ problemId: 19, sampleId: 3, customCuda: FAST, refArchSrc: "class Model: pass", level: 1, timeoutS: 120 });
    expect(evaluation).toMatchObject({ status: "completed", device: "cuda:0", result: { compiled: true, correctness: true, runtime: 0.5 } });
    expect(server.submitted).toEqual([{ problem_id: 19, sample_id: 3, custom_cuda: FAST, ref_arch_src: "class Model: pass", level: 1, timeout: 120 }]);
    expect(server.polls()).toBe(3);
  });

  it("a job the server failed is a failed evaluation with the server's error", async () => {
    const server = await standIn({ verdict: () => ({ error: "Evaluation timed out after 300s" }), pollsBeforeDone: 0 });
    const evaluation = await new KernelEvalServer(server.url, { pollIntervalMs: 1 }).evaluate({ problemId: 1, sampleId: 0, customCuda: FAST, refArchSrc: "", level: 1, timeoutS: 300 });
    expect(evaluation).toEqual({ status: "failed", error: "Evaluation timed out after 300s", device: "cuda:0" });
  });

  it("a server that is down, answers an HTTP error, or gives a result of the wrong shape is a KernelServerError naming the server", async () => {
    const request = { problemId: 1, sampleId: 0, customCuda: FAST, refArchSrc: "", level: 1, timeoutS: 300 };
    const down = await standIn({ verdict });
    await down.close();
    await expect(new KernelEvalServer(down.url).evaluate(request)).rejects.toThrow(new RegExp(`^the KernelBench evaluation server at ${down.url} cannot be reached`));
    const broken = await standIn({ verdict, httpStatus: 500 });
    const error = await new KernelEvalServer(broken.url).evaluate(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KernelServerError);
    expect((error as Error).message).toBe(`the KernelBench evaluation server at ${broken.url} answered POST /evaluate with HTTP 500: {"detail":"Device manager not initialized"}`);
    const malformed = await standIn({ verdict: () => ({ result: { compiled: "yes" } }), pollsBeforeDone: 0 });
    await expect(new KernelEvalServer(malformed.url).evaluate(request)).rejects.toThrow(/without a result of the expected shape/);
  });

  it("a job that is stopped stops polling at once, with the job's own reason", async () => {
    const server = await standIn({ verdict, pollsBeforeDone: 1_000_000 });
    const stop = new AbortController();
    const evaluation = new KernelEvalServer(server.url, { pollIntervalMs: 60_000 }).evaluate({ problemId: 1, sampleId: 0, customCuda: FAST, refArchSrc: "", level: 1, timeoutS: 300 }, stop.signal);
    while (server.polls() === 0) await new Promise((resolve) => setImmediate(resolve));
    stop.abort(new Error("job timed out"));
    await expect(evaluation).rejects.toThrow("job timed out");
    expect(server.polls()).toBe(1);
  });

  it("a job the server never finishes gives up after the wait limit, saying the job's last status", async () => {
    const server = await standIn({ verdict, pollsBeforeDone: 1_000_000 });
    await expect(new KernelEvalServer(server.url, { pollIntervalMs: 1, waitLimitMs: 1 }).evaluate({ problemId: 1, sampleId: 0, customCuda: FAST, refArchSrc: "", level: 1, timeoutS: 300 })).rejects.toThrow(
      /did not finish job job_1_\d+ within 0 s \(still (queued|running)\)/,
    );
  });
});

describe("the kernelbench suite", () => {
  it("without a server, a job is skipped, saying how to give one", async () => {
    const suite = new KernelBenchSuite(undefined, {});
    await expect(suite.load("kernelbench:relu", {})).rejects.toThrow(TaskUnavailableError);
    await expect(suite.load("kernelbench:relu", {})).rejects.toThrow(`kernelbench:relu needs a KernelBench evaluation server on a GPU machine: set eval_kwargs.server_url (or ${KERNEL_SERVER_VARIABLE})`);
  });

  it("an unknown problem, a malformed URL or timeout, or a server that is down is refused in one line", async () => {
    const suite = new KernelBenchSuite(undefined, {});
    await expect(suite.load("kernelbench:level1_problem19", { server_url: "http://127.0.0.1:1" })).rejects.toThrow(TaskNotFoundError);
    await expect(suite.load("kernelbench:relu", { server_url: "gpu-box:6000" })).rejects.toThrow("eval_kwargs.server_url must be an http(s) URL such as http://gpu-box:6000, got \"gpu-box:6000\"");
    await expect(suite.load("kernelbench:relu", { server_url: "http://127.0.0.1:1", timeout: 0 })).rejects.toThrow("eval_kwargs.timeout must be a positive number of seconds, got 0; write e.g. timeout: 300");
    const down = await standIn({ verdict });
    await down.close();
    await expect(suite.load("kernelbench:relu", { server_url: down.url })).rejects.toThrow(new RegExp(`^the KernelBench evaluation server at ${down.url} cannot be reached \\(connect ECONNREFUSED`));
  });

  it("starts from the reference itself and scores candidates by their speed-up over it, measured by the same server", async () => {
    const server = await standIn({ verdict, pollsBeforeDone: 1 });
    const suite = new KernelBenchSuite(undefined, { [KERNEL_SERVER_VARIABLE]: server.url });
    const bundle = await suite.load("kernelbench:relu", { poll_interval_s: 0.001 });
    const initial = bundle.parameters[0]!.value as string;
    expect(initial).toBe(referenceCandidate(readFileSync(join(bundledKernelRoot(), "relu.py"), "utf8")));
    expect(initial).toMatch(/class ModelNew\(Model\):/);
    expect(await scoreOf(bundle, initial)).toMatchObject({ score: 1 });
    expect(await scoreOf(bundle, FAST)).toEqual({ score: 4, feedback: "The candidate is correct. Runtime 0.5 ms against the reference's 2 ms. Speed-up over the reference: 4x." });
    expect(await scoreOf(bundle, BROKEN)).toEqual({ score: 0, feedback: "The candidate did not compile.\ncompilation_error: nvcc: error: expected a ';'" });
    expect(bundle.failureScore).toBe(0);
    expect(server.submitted.map((r) => [r.problem_id, r.level, r.custom_cuda === initial ? "reference" : r.custom_cuda === FAST ? "fast" : "broken"])).toEqual([
      [1, 1, "reference"],
      [1, 1, "fast"],
      [1, 1, "broken"],
    ]);
  });

  it("evaluates a candidate once per run, whichever job asks", async () => {
    const server = await standIn({ verdict, pollsBeforeDone: 0 });
    const suite = new KernelBenchSuite(undefined, { [KERNEL_SERVER_VARIABLE]: server.url });
    const [a, b] = [await suite.load("kernelbench:relu", {}), await suite.load("kernelbench:relu", {})];
    await Promise.all([scoreOf(a!, FAST), scoreOf(b!, FAST), scoreOf(a!, FAST)]);
    expect(server.submitted.filter((r) => r.custom_cuda === FAST)).toHaveLength(1);
    // The same candidate for another problem is another evaluation.
    await scoreOf(await suite.load("kernelbench:softmax", {}), FAST);
    expect(server.submitted.filter((r) => r.custom_cuda === FAST)).toHaveLength(2);
  });

  it("a shared evaluation stopped by one job is asked for again by the other, not taken as its stop", async () => {
    const server = await standIn({ verdict, pollsBeforeDone: 3 });
    const suite = new KernelBenchSuite(undefined, { [KERNEL_SERVER_VARIABLE]: server.url });
    const [a, b] = [await suite.load("kernelbench:relu", { poll_interval_s: 0.001 }), await suite.load("kernelbench:relu", { poll_interval_s: 0.001 })];
    const stopA = new AbortController();
    const first = scoreOf(a!, FAST, stopA.signal);
    const second = scoreOf(b!, FAST, new AbortController().signal);
    stopA.abort(new Error("job a cancelled"));
    await expect(first).rejects.toThrow("job a cancelled");
    expect(await second).toMatchObject({ score: 4 });
  });

  it("a server lost after the job started fails the evaluation with one line naming it (not a score of 0)", async () => {
    const server = await standIn({ verdict });
    const bundle = await new KernelBenchSuite(undefined, {}).load("kernelbench:relu", { server_url: server.url });
    await server.close();
    await expect(scoreOf(bundle, FAST)).rejects.toThrow(KernelServerError);
  });

  it("stub mode's other candidates for a shipped problem come with it; a checkout's problems have none", async () => {
    const server = await standIn({ verdict });
    const shipped = await new KernelBenchSuite(undefined, { [KERNEL_SERVER_VARIABLE]: server.url }).load("kernelbench:relu", {});
    const alternatives = shipped.stubAlternatives!.model_new_src as string[];
    expect(alternatives[0]).toBe(shipped.parameters[0]!.value);
    expect(alternatives.slice(1).some((source) => source.includes("load_inline") && source.includes("__global__ void relu_kernel"))).toBe(true);
    const root = checkout();
    const fromCheckout = await new KernelBenchSuite(root, { [KERNEL_SERVER_VARIABLE]: server.url }).load("kernelbench:level1_problem19", {});
    expect(fromCheckout.stubAlternatives!.model_new_src).toEqual([fromCheckout.parameters[0]!.value]);
    expect(fromCheckout.metadata).toMatchObject({ benchmark: "kernelbench", problem: "19_ReLU", level: 1, problem_id: 19 });
  });
});
