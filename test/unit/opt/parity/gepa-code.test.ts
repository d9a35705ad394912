/**
 * Parity scenario gepa-code (test/fixtures/parity/gepa-code.json): GEPA-Base, GEPA-UCB and
 * GEPA-Beam as the reference's GEPA code computes them, on the PAIR agent (inputs [0, 1], targets
 * [3, 5]). The numpy permutations (Pareto subset, minibatches) and the Python `random.Random`
 * choices (parents, merge pairs, crossover) are injected from the recording.
 *
 * Run GEPA-UCB_with_validate_dataset_kwarg: the reference's GEPA-UCB raises TypeError on the
 * `validate_dataset` the harness passes for a task with a validate set (it only knows
 * `validation_dataset`). Its evident intent, which GEPA-Base and GEPA-Beam follow, is the validate
 * set as the Pareto set; here the task's split is that set, and a trainer param of that name is refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtinTaskRegistry } from "../../../../adapters/tasks/index.js";
import { loadRunConfig } from "../../../../src/config/run-config.js";
import { configProblems } from "../../../../src/engine/config-checks.js";
import { GEPA_BASE, GEPA_BEAM, GEPA_UCB } from "../../../../src/opt/trainers/gepa.js";
import { runGepa, type GepaEvent, type GepaVariant } from "../../../../src/opt/trainers/gepa-core.js";
import { pairAgent, parityFixture } from "../../../support/parity.js";
import { replayForks, replayPythonRandom, replayRng, type PythonRandomDraw } from "../../../support/replay-rng.js";
import type { Rng } from "../../../../src/opt/rng.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { shownValues } from "../../../support/shown-values.js";
import { harnessContext } from "../../../support/trainer-harness.js";

type Values = Record<string, number>;
interface Run {
  train_kwargs: Record<string, number>;
  numpy_draws: { n: number; result: number[] }[];
  python_random_draws: PythonRandomDraw[];
  calls: { shown: number[]; reply: { format: string; assign?: Record<string, number> } | string; optimizer_returned: Values }[];
  guide_calls_total: number;
  parent_selections: { iteration: number; buffer: { id: number; wins: number; mean: number; params: Values }[]; parent_id: number }[];
  children: { iteration: number; agent_values_at_mutation: Values; train_xs: number[]; optimizer_returned: Values; child_update_dict: Values }[];
  merges: { iteration: number; pool_order_ids: number[]; run_dependent: boolean; merged_evaluations: { values: Values; scores: number[] }[]; accepted: { params: Values; mean: number; parent_ids: number[] } | null }[];
  candidates_created: { id: number; params: Values; eval_vector: number[]; mean: number; parent_ids: number[]; ancestors: number[]; created_in_iteration: number; created_in_phase: string | null }[];
  final_apply_params: Values[];
  returned: { best_mean: number };
  final: { values: Values; scores_per_example: number[] };
}
interface LongRun {
  train_kwargs: Record<string, number>;
  llm_total_calls: number;
  child_ids: number[];
  child_params: Values[];
  buffer_sizes_at_parent_selection: number[];
  buffer_ids_at_last_selection: number[];
  merges_accepted: boolean[];
  returned: { best_mean: number };
  final: { values: Values; scores_per_example: number[] };
}
const { runs } = parityFixture<{ runs: Record<string, unknown> }>("gepa-code");
const VARIANTS: Record<string, GepaVariant> = { "GEPA-Base": GEPA_BASE, "GEPA-UCB": GEPA_UCB, "GEPA-Beam": GEPA_BEAM };

/** The scripted reply of a recorded call: an xml block naming the returned variables, or the raw text. */
function replyOf(call: Run["calls"][number]): string {
  if (typeof call.reply === "string") return "A plain sentence without any tags.";
  if (call.reply.format === "raw") return "TERMINATE";
  return xmlReply(call.optimizer_returned);
}

interface ValidateKwargRun {
  train_kwargs: Record<string, unknown> & { validate_dataset: { inputs: number[]; infos: number[] } };
  error: { type: string; message: string };
  llm_total_calls: number;
}

async function runVariant(name: string, kwargs: Record<string, unknown>, script: string[], rng?: Rng, validate?: { inputs: number[]; targets: number[] }) {
  const bundle = pairAgent({ inputs: [0, 1], targets: [3, 5], ...(validate ? { validate } : {}) });
  const llm = scriptedLlm(script);
  const events: GepaEvent[] = [];
  const { context, events: recorded } = harnessContext(bundle, llm, { kwargs, ...(rng ? { rng } : {}) });
  const result = await runGepa(context, VARIANTS[name]!, (e) => events.push(e));
  const iterations = recorded.filter((e) => e.type === "IterationCompleted").map((e) => e.data as Record<string, unknown>);
  return { bundle, llm, events, iterations, values: result.values };
}

describe("parity gepa-code", () => {
  for (const name of ["GEPA-Base", "GEPA-UCB", "GEPA-Beam"]) {
    const run = runs[name] as Run;
    it(`gepa-code ${name}: parents, partial children, copies on empty replies, merges, ids and the final agent ${JSON.stringify(run.final.values)}`, async () => {
      const numpy = replayRng(run.numpy_draws);
      const random = replayPythonRandom(run.python_random_draws);
      const got = await runVariant(name, run.train_kwargs, run.calls.map(replyOf), replayForks({ "gepa/numpy": numpy, "gepa/random": random }));
      expect(got.llm.remaining()).toBe(0);
      expect(numpy.remainingAnswers()).toBe(0);
      expect(random.remainingAnswers()).toBe(0);

      // Each call shows the agent's values after the parent was applied on top of what it held.
      expect(got.llm.requests.map((r) => shownValues(r))).toEqual(run.calls.map((c) => ({ a: c.shown[0], b: c.shown[1] })));
      expect(run.children.map((c) => c.agent_values_at_mutation)).toEqual(run.calls.map((c) => ({ a: c.shown[0], b: c.shown[1] })));

      // Parent selections: the buffer (ids, wins, means) and the parent chosen.
      const parents = got.events.filter((e) => e.kind === "parent");
      expect(parents.map((p) => ({ iteration: p.iteration, buffer: p.buffer, parent_id: p.parentId }))).toEqual(
        run.parent_selections.map((p) => ({ iteration: p.iteration, buffer: p.buffer.map(({ id, wins, mean }) => ({ id, wins, mean })), parent_id: p.parent_id })),
      );

      // Every candidate: partial dicts for one-variable replies, full copies for TERMINATE and the unreadable reply.
      const created = got.events.filter((e) => e.kind === "candidate");
      expect(
        created.map(({ candidate: c, phase }) => ({
          id: c.id,
          params: c.values,
          eval_vector: c.evalVector,
          mean: c.mean,
          parent_ids: c.parentIds,
          ancestors: [...c.ancestors].sort((x, y) => x - y),
          created_in_iteration: c.createdIter,
          created_in_phase: phase === "seed" ? null : phase === "child" ? "child_eval" : "merge",
        })),
      ).toEqual(run.candidates_created);

      // Merges: the ranked pool, what was evaluated, acceptance.
      const merges = got.events.filter((e) => e.kind === "merge");
      expect(merges.map((m) => ({ iteration: m.iteration, pool: m.poolIds, evaluated: m.evaluated.length, accepted: m.accepted }))).toEqual(
        run.merges.map((m) => ({ iteration: m.iteration, pool: m.pool_order_ids, evaluated: m.merged_evaluations.length, accepted: m.accepted !== null })),
      );
      // A merge whose values the reference draws in a process-dependent order is compared by count only.
      run.merges.forEach((m, i) => {
        if (!m.run_dependent) expect(merges[i]!.evaluated.map((e) => ({ values: e.values, scores: e.evalVector }))).toEqual(m.merged_evaluations);
      });

      expect(got.bundle.calls).toHaveLength(run.guide_calls_total);
      expect(got.iterations.at(-1)!.best_score).toBe(run.returned.best_mean);
      expect(got.values).toEqual(run.final.values);
    });
  }

  it("gepa-code GEPA-Base: the best candidate {b 5} was scored with a = 3; the final agent is a=0, b=5, scoring [−3, 0] while the returned best mean is 0", async () => {
    const run = runs["GEPA-Base"] as Run;
    expect(run.final_apply_params).toEqual([{ b: 5 }]);
    const got = await runVariant("GEPA-Base", run.train_kwargs, run.calls.map(replyOf), replayForks({ "gepa/numpy": replayRng(run.numpy_draws), "gepa/random": replayPythonRandom(run.python_random_draws) }));
    const best = got.events.find((e) => e.kind === "candidate" && e.candidate.id === 2)!;
    expect(best.kind === "candidate" && best.candidate.values).toEqual({ b: 5 });
    // The agent's last scoring (the rejected iteration-4 merge) left a = 0; applying {b: 5} keeps it.
    expect(got.values).toEqual({ a: 0, b: 5 });
    const score = (values: Values) => [0, 1].map((x) => -Math.abs((x === 0 ? values.a! : values.b!) - [3, 5][x]!));
    expect(score(got.values as Values)).toEqual(run.final.scores_per_example);
  });

  for (const name of ["GEPA-Base_long_all_terminate", "GEPA-UCB_long_all_terminate"]) {
    const run = runs[name] as LongRun;
    const variant = name.split("_")[0]!;
    it(`gepa-code ${name}: 20 TERMINATE replies each add a copy; the buffer stays at 16; ids ${variant === "GEPA-Base" ? "repeat (16, 16, …)" : "stay unique"}`, async () => {
      // The random draws of these runs were not recorded; with every candidate equal they decide
      // nothing that is compared here (all merges tie and are rejected).
      const got = await runVariant(variant, run.train_kwargs, Array.from({ length: run.llm_total_calls }, () => "TERMINATE"));
      const children = got.events.filter((e) => e.kind === "candidate" && e.phase === "child").map((e) => (e.kind === "candidate" ? e.candidate : null)!);
      expect(children.map((c) => c.id)).toEqual(run.child_ids);
      expect(children.map((c) => c.values)).toEqual(run.child_params);
      const parents = got.events.filter((e) => e.kind === "parent");
      expect(parents.map((p) => p.buffer.length)).toEqual(run.buffer_sizes_at_parent_selection);
      expect(parents.at(-1)!.buffer.map((c) => c.id)).toEqual(run.buffer_ids_at_last_selection);
      expect(got.events.filter((e) => e.kind === "merge").map((m) => m.accepted)).toEqual(run.merges_accepted);
      expect(got.iterations.at(-1)!.best_score).toBe(run.returned.best_mean);
      expect(got.values).toEqual(run.final.values);
    });
  }

  describe("GEPA-UCB_with_validate_dataset_kwarg", () => {
    const run = runs["GEPA-UCB_with_validate_dataset_kwarg"] as ValidateKwargRun;
    const { validate_dataset: validate, ...kwargs } = run.train_kwargs;
    const tmp = mkdtempSync(join(tmpdir(), "trace-bench-gepa-"));
    const registry = builtinTaskRegistry();
    afterAll(() => {
      registry.close();
      rmSync(tmp, { recursive: true, force: true });
    });

    it("gepa-code GEPA-UCB_with_validate_dataset_kwarg (deliberate difference): the reference raises TypeError before any call; here the task's validate set is the Pareto set", async () => {
      expect(run.error.type).toBe("TypeError");
      expect(run.error.message).toContain("'validate_dataset'");
      expect(run.llm_total_calls).toBe(0);
      const got = await runVariant("GEPA-UCB", kwargs, [xmlReply({ a: 3 })], undefined, { inputs: validate.inputs, targets: validate.infos });
      expect(got.llm.remaining()).toBe(0);
      // The seed and the child {a: 3} are scored on the validate example only (the train set has two).
      const created = got.events.filter((e) => e.kind === "candidate").map((e) => (e.kind === "candidate" ? e.candidate : null)!);
      const guide = (a: number) => validate.infos.map((target) => -Math.abs(a - target));
      expect(created.map((c) => [c.values, c.evalVector])).toEqual([
        [{ a: 0, b: 0 }, guide(0)],
        [{ a: 3 }, guide(3)],
      ]);
      expect(got.values).toEqual({ a: 3, b: 0 });
    });

    it("gepa-code GEPA-UCB_with_validate_dataset_kwarg: a validate_dataset trainer param is refused by run and validate --strict (datasets come from the task)", async () => {
      const path = join(tmp, "gepa-ucb.yaml");
      writeFileSync(path, `mode: stub\ntasks: [internal:numeric_param]\ntrainers:\n  - id: GEPA-UCB\n    params_variants:\n      - num_search_iterations: 1\n        validate_dataset: {inputs: [0], infos: [3.0]}\n`);
      const problems = await configProblems(loadRunConfig(path), registry, { strict: true, tasks: false });
      expect(problems.map((p) => [p.where.replace(`${path}:`, "line "), p.text])).toEqual([
        ["line 7", expect.stringMatching(/^unknown trainer kwarg 'validate_dataset' for GEPA-UCB: datasets come from the task, not from trainer params \(valid: /)],
      ]);
    });

    it("gepa-code GEPA-UCB_with_validate_dataset_kwarg: UCBSearchAlgorithm's validation_dataset (which the reference ignores) is refused the same way", async () => {
      const path = join(tmp, "ucb.yaml");
      writeFileSync(path, `mode: stub\ntasks: [internal:numeric_param]\ntrainers:\n  - id: UCBSearchAlgorithm\n    params_variants:\n      - num_search_iterations: 1\n        validation_dataset: {inputs: [0], infos: [3.0]}\n`);
      const problems = await configProblems(loadRunConfig(path), registry, { strict: true, tasks: false });
      expect(problems.map((p) => [p.where.replace(`${path}:`, "line "), p.text])).toEqual([
        ["line 7", expect.stringMatching(/^unknown trainer kwarg 'validation_dataset' for UCBSearchAlgorithm: datasets come from the task, not from trainer params \(valid: /)],
      ]);
    });
  });
});
