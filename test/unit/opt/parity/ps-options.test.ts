/**
 * Parity scenario ps-options: PrioritySearch options on A1 with one example (input 0, target 3),
 * OptoPrimeV2 with default kwargs (memory 0), num_threads 1.
 */
import { describe, expect, it } from "vitest";
import { readPrioritySearchOptions } from "../../../../src/opt/trainers/priority-search.js";
import { a1, comparableEvaluations, fixture, label, runRecorded, type RecordedRun } from "./support.js";

interface Run extends RecordedRun {
  readonly validate_set?: { inputs: number[]; targets: number[] };
  readonly validate_sequence?: { x: number; output: number }[];
  readonly harness_params?: Record<string, unknown>;
  readonly resolved_trainer_kwargs?: Record<string, unknown>;
}
const { runs } = fixture<{ runs: Record<string, Run> }>("ps-options");

/** The facts every run compares: calls, values shown, per-iteration best and exploration, final. */
async function expectRecorded(name: string, kwargs: Record<string, unknown>, bundle = a1([0], [3]), optimizerKwargs = {}) {
  const run = runs[name]!;
  const got = await runRecorded(bundle, run.calls, readPrioritySearchOptions(kwargs, "PrioritySearch"), optimizerKwargs);
  expect(got.remaining).toBe(0);
  expect(got.memoryRounds).toEqual(run.calls.map((c) => c.memory_rounds));
  expect(got.shown).toEqual(run.calls.map((c) => c.shown[0]));
  run.iterations.slice(1).forEach((recorded, i) => {
    const s = got.snapshots[i]!;
    expect([label(s.best.id), s.best.values, s.best.mean]).toEqual([recorded.best.label, recorded.best.values, recorded.best.mean_score]);
    expect(s.exploration.map((c) => label(c.id))).toEqual(recorded.exploration);
  });
  expect(got.values).toEqual(run.final.values);
  return { run, got };
}

describe("parity ps-options", () => {
  it("ps-options score_function_time: the oldest candidate (c0) is explored in every iteration; exploit keeps the best mean; final 2.8", async () => {
    const { run } = await expectRecorded("score_function_time", runs.score_function_time!.train_kwargs);
    expect(run.iterations.slice(1).map((it) => it.exploration[1])).toEqual(["c0", "c0"]);
  });

  it("ps-options score_function_ucb_default_range: with the infinite default range every priority is +∞ and the newest pops first; final 2.8", async () => {
    const { got } = await expectRecorded("score_function_ucb_default_range", runs.score_function_ucb_default_range!.train_kwargs);
    expect(got.snapshots.map((s) => s.bestPriority)).toEqual([Infinity, Infinity]);
  });

  it("ps-options validate_dataset: new candidates and exploration candidates are validated on two different validate draws; final 2.0", async () => {
    const run = runs.validate_dataset!;
    const seen: { value: number; x: number }[] = [];
    const { got } = await expectRecorded("validate_dataset", run.train_kwargs, a1([0], [3], { validate: run.validate_set!, seen }));
    const validateInputs = new Set(run.validate_set!.inputs);
    const onValidate = seen.filter((s) => validateInputs.has(s.x));
    // Recorded: the new candidates (1.0, 2.0) on one validate example, both copies of the initial agent on the other.
    const recorded = run.validate_sequence!;
    expect(onValidate.map((s) => s.value)).toEqual(recorded.map((r) => r.output));
    const xOf = (rows: readonly { x: number }[]) => [...new Set(rows.map((r) => r.x))];
    const newX = (rows: readonly { value?: number; output?: number; x: number }[]) => xOf(rows.filter((r) => (r.value ?? r.output) !== 0));
    const oldX = (rows: readonly { value?: number; output?: number; x: number }[]) => xOf(rows.filter((r) => (r.value ?? r.output) === 0));
    expect(newX(recorded)).toHaveLength(1);
    expect(oldX(recorded)).toHaveLength(1);
    expect(newX(recorded)[0]).not.toBe(oldX(recorded)[0]);
    expect(newX(onValidate)).toHaveLength(1);
    expect(oldX(onValidate)).toHaveLength(1);
    expect(newX(onValidate)[0]).not.toBe(oldX(onValidate)[0]);
    // The exploration sample still runs on the train set (input 0).
    expect(seen.filter((s) => s.x === 0).map((s) => s.value)).toEqual([0, 0]);
    expect(got.iterations.at(-1)!.evaluations).toBe(comparableEvaluations(run.evaluations.by_iteration_and_phase));
  });

  it("ps-options long_term_memory_size_2: a deliberate difference: our memory keeps the top 2 (the reference slices its heap array, drops 2.0 and 2.5, and ends on 1.0)", async () => {
    const run = runs.long_term_memory_size_2!;
    expect(run.final.values).toEqual({ value: 1 });
    // Same replies; iteration 2 improves the best kept candidate (2.5), not 1.0.
    const calls = run.calls;
    const got = await runRecorded(a1([0], [3]), calls, readPrioritySearchOptions(run.train_kwargs, "PrioritySearch"));
    expect(got.shown).toEqual([0, 0, 0, 2.5, 2.5, 2.5]);
    expect(got.values).toEqual({ value: 2.9 });
  });

  it("ps-options harness_batch_size_alias: the reference ignores train_batch_size (batch 1: 8 calls, rounds [0,0,1,1,2,2,3,3], final 3.0); we honour it", async () => {
    const run = runs.harness_batch_size_alias!;
    const resolved = run.resolved_trainer_kwargs!;
    expect(resolved.train_batch_size).toBe(2);
    const bundle = a1([0, 1], [3, 3]);
    // Without the alias our engine reproduces the reference run.
    const { train_batch_size: _ignored, ...asReference } = resolved;
    await expectRecorded("harness_batch_size_alias", asReference, bundle, { memory_size: 5 });
    // With it (what a trace-bench user asked for): one batch of 2, one proposing iteration, 4 calls.
    const got = await runRecorded(bundle, run.calls.slice(0, 4), readPrioritySearchOptions(resolved, "PrioritySearch"), { memory_size: 5 });
    expect(got.remaining).toBe(0);
    expect(got.snapshots).toHaveLength(1);
  });
});
