/**
 * Parity scenario ps-smoke-harness: Trace-Bench's smoke job (internal:numeric_param ×
 * PrioritySearch, ps_steps 1, ps_batches 1, the harness defaults) with scripted replies. The task
 * is a Trace model (a float `value` returned through the trainable op `emit`), so no optimizer
 * named resolves to OptoPrimeV2, and every prompt shows the traced graph: #Code `eval`, then
 * `batchify`; the model object as the input; both `value` and emit's code as variables.
 */
import { afterAll, describe, expect, it } from "vitest";
import { builtinTaskRegistry } from "../../../../adapters/tasks/index.js";
import { toPlain, type Kwargs } from "../../../../src/config/kwargs.js";
import { defaultOptimizerFor } from "../../../../src/opt/default-optimizer.js";
import { codeParameterName } from "../../../../src/opt/trace/model.js";
import { readPrioritySearchOptions, runPrioritySearch, type IterationSnapshot } from "../../../../src/opt/trainers/priority-search.js";
import { floatReply, promptFacts, recordedFacts } from "../../../support/prompt-facts.js";
import { scriptedLlm, type ScriptStep } from "../../../support/scripted-llm.js";
import { harnessContext } from "../../../support/trainer-harness.js";
import { comparableEvaluations, fixture, label, skippedEvaluations } from "./support.js";

const recorded = fixture<{ runs: Record<string, any> }>("ps-smoke-harness");
const registry = builtinTaskRegistry();
afterAll(() => registry.close());

async function smokeJob(script: readonly ScriptStep[], kwargs: Kwargs) {
  const bundle = await registry.load("internal:numeric_param", {});
  const optimizer = defaultOptimizerFor(bundle);
  const llm = scriptedLlm(script);
  const snapshots: IterationSnapshot[] = [];
  const { context, events } = harnessContext(bundle, llm, { kwargs, optimizer, seed: 123 });
  const result = await runPrioritySearch(context, readPrioritySearchOptions(toPlain(kwargs), "PrioritySearch"), (s) => snapshots.push(s));
  const iterations = events.filter((e) => e.type === "IterationCompleted").map((e) => e.data as Record<string, any>);
  return { bundle, optimizer, llm, snapshots, iterations, values: result.values };
}

describe("parity ps-smoke-harness", () => {
  const scripted = recorded.runs.scripted_threads_default;

  it("ps-smoke-harness scripted_threads_default: OptoPrimeV2 with the task's kwargs, 4 prompts showing the traced graph, memory rounds [0, 0, 1, 1], best 3.25 (−0.25)", async () => {
    const calls = scripted.llm.calls as Record<string, any>[];
    const job = await smokeJob(
      calls.map((c) => floatReply(c.reply.assign["float:0"])),
      scripted.harness_result.resolved_trainer_kwargs,
    );
    expect(job.optimizer).toBe(scripted.harness_result.resolved_optimizer);
    const { llm: _llm, ...kwargs } = scripted.harness_result.resolved_optimizer_kwargs;
    expect(job.bundle.optimizer_kwargs).toEqual(kwargs);
    expect(job.llm.remaining()).toBe(0);
    expect(job.llm.requests).toHaveLength(scripted.llm.total_calls);
    job.llm.requests.forEach((request, i) => {
      const call = calls[i]!;
      expect(promptFacts(request)).toEqual(recordedFacts(call));
      expect(request.maxTokens).toBe(call.max_tokens);
      expect(request.responseFormat).toBeUndefined();
    });

    const last = scripted.iterations.at(-1);
    const snapshot = job.snapshots.at(-1)!;
    expect([label(snapshot.best.id), snapshot.best.values.value, snapshot.best.mean]).toEqual([last.best.label, last.best.values.value, last.best.mean_score]);
    expect(snapshot.exploration.map((c) => label(c.id))).toEqual(last.exploration_candidates.map((c: { label: string }) => c.label));
    // emit's code is never changed by a reply that names only the float.
    expect(job.values).toEqual({ [codeParameterName("emit")]: job.bundle.parameters.find((p) => p.kind === "code")!.value, value: last.agent_set_to.value });
    expect(job.iterations.at(-1)).toMatchObject({ score: scripted.harness_result.score_val_final, llm_calls: 4 });
    expect(job.iterations.at(-1)!.evaluations).toBe(comparableEvaluations(scripted.evaluations.guide_calls_by_iteration_and_phase));
  });

  it("ps-smoke-harness scripted_threads_default (deliberate difference): 6 guide calls in training where the reference makes 10, without its test phase (2) and its sample after the last iteration (2); the same result", async () => {
    const evaluations = scripted.evaluations;
    const byPhase: Record<string, number> = evaluations.guide_calls_by_iteration_and_phase;
    expect(Object.values(byPhase).reduce((sum, n) => sum + n, 0)).toBe(evaluations.guide_calls_inside_trainer);
    const skipped = skippedEvaluations(byPhase);
    expect(skipped).toEqual({ test: 2, unusedSample: 2 });
    const job = await smokeJob(
      (scripted.llm.calls as Record<string, any>[]).map((c) => floatReply(c.reply.assign["float:0"])),
      scripted.harness_result.resolved_trainer_kwargs,
    );
    expect(job.iterations.at(-1)!.evaluations).toBe(evaluations.guide_calls_inside_trainer - skipped.test - skipped.unusedSample);
    expect(job.iterations.at(-1)!.score).toBe(scripted.harness_result.score_val_final);
  });

  it("ps-smoke-harness harness_stub_reply: 4 replies with an empty suggestion are all discarded; the task stays at −3.0", async () => {
    const stub = recorded.runs.harness_stub_reply;
    const reply = JSON.stringify({ reasoning: "stub", answer: "", suggestion: {} });
    const job = await smokeJob(Array(stub.llm.total_calls).fill(reply), stub.harness_result.resolved_trainer_kwargs);
    expect(job.llm.remaining()).toBe(0);
    for (const [i, request] of job.llm.requests.entries()) expect(promptFacts(request)).toEqual(recordedFacts(stub.llm.calls[i]));
    expect(stub.llm.calls.every((c: { became_candidate: unknown }) => c.became_candidate === null)).toBe(true);
    expect(job.snapshots.at(-1)!.created).toEqual([]);
    expect(job.values.value).toBe(0);
    expect(job.iterations.at(-1)).toMatchObject({ score: stub.harness_result.score_val_final });
    expect(job.iterations.at(-1)!.evaluations).toBe(comparableEvaluations(stub.evaluations.guide_calls_by_iteration_and_phase));
  });
});
