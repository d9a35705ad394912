/**
 * Parity scenario gepa-names-harness (test/fixtures/parity/gepa-names-harness.json): the pinned
 * Trace-Bench harness runs ParetobasedPS for the names GEPA-Base, GEPA-UCB and GEPA-Beam. Here
 * ParetobasedPS is its own trainer (those names run the GEPA algorithm: gepa-code.test.ts).
 * The direct run replays the recorded numpy permutations into the train loader.
 */
import { afterAll, describe, expect, it } from "vitest";
import { builtinTaskRegistry } from "../../../../adapters/tasks/index.js";
import type { IterationSnapshot } from "../../../../src/opt/trainers/priority-search.js";
import { runPrioritySearch } from "../../../../src/opt/trainers/priority-search.js";
import { PARETOBASED_PS_KWARGS, readParetobasedOptions } from "../../../../src/opt/trainers/paretobased-ps.js";
import { pairAgent, parityFixture } from "../../../support/parity.js";
import { floatReply, promptFacts } from "../../../support/prompt-facts.js";
import { replayForks, replayRng } from "../../../support/replay-rng.js";
import { scriptedLlm, xmlReply, type ScriptStep } from "../../../support/scripted-llm.js";
import { shownValues } from "../../../support/shown-values.js";
import { harnessContext } from "../../../support/trainer-harness.js";
import { comparableEvaluations, label } from "./support.js";

type Values = Record<string, number>;
interface Candidate {
  label: string;
  values: Values;
  mean_score: number | null;
  num_rollouts: number;
}
interface Explore {
  iteration: number;
  memory_size_before: number;
  selected: string[];
  memory_size_after: number;
}
interface Fixture {
  harness: Record<
    string,
    {
      resolved_class: string;
      resolved_trainer_kwargs: Record<string, number>;
      resolved_optimizer: string;
      resolved_optimizer_memory_size: number;
      score_val_initial: number;
      score_val_final: number;
      calls: { shown_float: number; memory_rounds: number; returned: Values; became_candidate: string; optimizer_step_kwargs: string[] }[];
      evaluations: { guide_calls_inside_trainer: number; by_iteration_and_phase: Record<string, number> };
      iterations: { iteration: number; best: Candidate; exploration: string[]; memory: string[] }[];
      pareto_explore: Explore[];
    }
  >;
  direct: {
    train_kwargs: Record<string, number>;
    numpy_draws: { n: number; result: number[] }[];
    calls: { shown: number[]; memory_rounds: number; feedback: string; returned: Values; became_candidate: string }[];
    evaluations: { by_iteration_and_phase: Record<string, number>; sequence: { iteration: number; phase: string; x: number; output: number; score: number }[] };
    iterations: { iteration: number; best: Candidate; exploration: string[]; memory: Candidate[] }[];
    pareto_explore: Explore[];
    proposed: { iteration: number; candidates: Candidate[] }[];
    final: { values: Values; scores_per_example: number[] };
  };
}
const recorded = parityFixture<Fixture>("gepa-names-harness");

async function runParetobased(bundle: Parameters<typeof harnessContext>[0], replies: readonly ScriptStep[], kwargs: Record<string, unknown>, rng?: ReturnType<typeof replayRng>) {
  const llm = scriptedLlm(replies);
  const snapshots: IterationSnapshot[] = [];
  const { context, events } = harnessContext(bundle, llm, rng ? { rng: replayForks({ "priority-search/train-loader": rng }) } : {});
  const result = await runPrioritySearch(context, readParetobasedOptions(kwargs), (s) => snapshots.push(s));
  const iterations = events.filter((e) => e.type === "IterationCompleted").map((e) => e.data as Record<string, unknown>);
  return { llm, snapshots, iterations, values: result.values };
}

const userText = (r: { messages: readonly { role: string; content: string }[] }) => r.messages.filter((m) => m.role === "user").map((m) => m.content).join("\n");
const memoryRounds = (r: Parameters<typeof userText>[0]) => (userText(r).match(/<round \d+>/g) ?? []).length;

const registry = builtinTaskRegistry();
afterAll(() => registry.close());

describe("parity gepa-names-harness", () => {
  it("gepa-names-harness ParetobasedPS_direct_two_examples: PAIR agent; frontier {c4, c3} explored in iteration 2; best c4 {a 0, b 5}", async () => {
    const run = recorded.direct;
    const bundle = pairAgent({ inputs: [0, 1], targets: [3, 5] });
    const rng = replayRng(run.numpy_draws);
    const got = await runParetobased(bundle, run.calls.map((c) => xmlReply(c.returned)), run.train_kwargs, rng);
    expect(got.llm.remaining()).toBe(0);
    expect(rng.remainingAnswers()).toBe(0);

    // Calls: 3 in iteration 1 (one per initial copy), 2 in iteration 2 (one per frontier candidate).
    expect(got.snapshots.map((s) => s.proposals)).toEqual([3, 2]);
    expect(got.llm.requests.map((r) => shownValues(r))).toEqual(run.calls.map((c) => ({ a: c.shown[0], b: c.shown[1] })));
    expect(got.llm.requests.map(memoryRounds)).toEqual(run.calls.map((c) => c.memory_rounds));
    // The batch order (replayed): the feedback lists the targets in the recorded order.
    const targetsIn = (text: string) => [...text.matchAll(/ID \[\d+\]: target=([\d.]+)/g)].map((m) => Number(m[1]));
    expect(got.llm.requests.map((r) => targetsIn(userText(r)))).toEqual(run.calls.map((c) => targetsIn(c.feedback)));

    // Proposals become candidates with full value dicts (the reference fills in the other parameter).
    const created = got.snapshots.map((s) => s.created.map((c) => ({ label: label(c.id), values: c.values })));
    expect(created).toEqual(run.proposed.map((p) => p.candidates.map((c) => ({ label: c.label, values: c.values }))));

    // Every agent run, in order: the reference's sample and validate phases (its test phase and
    // the sample of the batch drawn after the last iteration are not run here).
    const last = Math.max(...run.evaluations.sequence.map((e) => e.iteration));
    const comparable = run.evaluations.sequence.filter((e) => e.phase !== "test" && !(e.phase === "sample" && e.iteration === last));
    expect(bundle.calls.map((c) => [c.input, c.input === 0 ? c.values.a : c.values.b])).toEqual(comparable.map((e) => [e.x, e.output]));
    expect(got.iterations.at(-1)!.evaluations).toBe(comparableEvaluations(run.evaluations.by_iteration_and_phase));

    // Per iteration: the best (exploit), the frontier explored next, the memory left behind.
    run.iterations.slice(1).forEach((it, i) => {
      const s = got.snapshots[i]!;
      expect({ label: label(s.best.id), values: s.best.values, mean_score: s.best.mean, num_rollouts: s.best.rollouts }).toEqual(it.best);
      expect(s.exploration.map((c) => label(c.id))).toEqual(it.exploration);
      const explore = run.pareto_explore[i + 1]!;
      expect(s.exploration.map((c) => label(c.id))).toEqual(explore.selected);
      expect(s.longTermMemorySize).toBe(explore.memory_size_after);
    });
    // The three initial copies collapse into c0 with all 6 rollouts (mean −4), left in memory.
    expect(run.iterations[1]!.memory.find((c) => c.label === "c0")).toMatchObject({ mean_score: -4, num_rollouts: 6 });
    expect(got.snapshots[0]!.explored.map((c) => [label(c.id), c.mean, c.rollouts])).toEqual([["c0", -4, 6]]);

    expect(got.values).toEqual(run.final.values);
  });

  it("gepa-names-harness GEPA-Base/UCB/Beam as the harness runs them: ParetobasedPS with its defaults on internal:numeric_param, 10 calls, best 2.9 (−0.1)", async () => {
    const names = Object.keys(recorded.harness);
    expect(names).toEqual(["GEPA-Base", "GEPA-UCB", "GEPA-Beam"]);
    for (const name of names) expect(recorded.harness[name]!.resolved_class).toMatch(/\.ParetobasedPS$/);
    const run = recorded.harness["GEPA-Base"]!;
    // The three runs are identical: same calls, values and selections.
    for (const name of names.slice(1)) {
      const other = recorded.harness[name]!;
      expect(other.calls.map(({ optimizer_step_kwargs: _, ...c }) => c)).toEqual(run.calls.map(({ optimizer_step_kwargs: _, ...c }) => c));
      expect(other.iterations).toEqual(run.iterations);
    }
    // The GEPA kwargs the harness resolves reach ParetobasedPS only as unknown kwargs: it runs
    // with the PrioritySearch defaults (10 candidates, 1 proposal, 1 epoch, batch 1).
    for (const name of names) {
      const own = Object.keys(recorded.harness[name]!.resolved_trainer_kwargs).filter((k) => k !== "train_batch_size");
      expect(own.filter((k) => PARETOBASED_PS_KWARGS.includes(k))).toEqual([]);
    }
    const bundle = await registry.load("internal:numeric_param", {});
    expect(bundle.optimizer_kwargs).toMatchObject({ memory_size: run.resolved_optimizer_memory_size });
    const got = await runParetobased(bundle, run.calls.map((c) => floatReply(Number(c.returned.value))), {});
    expect(got.llm.remaining()).toBe(0);
    const shownFloat = (r: Parameters<typeof promptFacts>[0]) => Number(promptFacts(r).variables.find((v) => v.type === "float")!.value);
    expect(got.llm.requests.map(shownFloat)).toEqual(run.calls.map((c) => c.shown_float));
    expect(got.llm.requests.map(memoryRounds)).toEqual(run.calls.map((c) => c.memory_rounds));
    expect(got.snapshots[0]!.created.map((c) => label(c.id))).toEqual(run.calls.map((c) => c.became_candidate));

    const [, it1] = run.iterations;
    const s = got.snapshots[0]!;
    expect({ label: label(s.best.id), value: s.best.values.value, mean_score: s.best.mean, num_rollouts: s.best.rollouts }).toEqual({
      label: it1!.best.label,
      value: it1!.best.values.value,
      mean_score: it1!.best.mean_score,
      num_rollouts: it1!.best.num_rollouts,
    });
    // Iteration 0 explores all 10 initial copies; iteration 1's frontier on the one task is the single best.
    expect(run.pareto_explore.map((p) => p.selected.length)).toEqual([10, 1]);
    expect(s.explored.map((c) => [label(c.id), c.rollouts])).toEqual([["c0", 10]]);
    expect(s.exploration.map((c) => label(c.id))).toEqual(run.pareto_explore[1]!.selected);
    expect(s.longTermMemorySize).toBe(run.pareto_explore[1]!.memory_size_after);
    expect(got.iterations.at(-1)!.evaluations).toBe(comparableEvaluations(run.evaluations.by_iteration_and_phase));
    expect(got.iterations.at(-1)!.score).toBe(run.score_val_final);
    expect(got.values.value).toBe(it1!.best.values.value);
    // emit's code is never changed by replies that name only the float.
    const code = bundle.parameters.find((p) => p.kind === "code")!;
    expect(got.values[code.name]).toBe(code.value);
  });
});
