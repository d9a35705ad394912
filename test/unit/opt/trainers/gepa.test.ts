import { describe, expect, it } from "vitest";
import { createStubLlm } from "../../../../adapters/llm/stub-llm.js";
import { builtinTaskRegistry } from "../../../../adapters/tasks/index.js";
import type { Kwargs } from "../../../../src/config/kwargs.js";
import type { Llm } from "../../../../src/llm/llm.js";
import type { ParameterValues } from "../../../../src/domain/parameter.js";
import { createRng, type Rng } from "../../../../src/opt/rng.js";
import type { Trainer } from "../../../../src/opt/trainer.js";
import { gepaBaseTrainer, gepaBeamTrainer, gepaUcbTrainer } from "../../../../src/opt/trainers/gepa.js";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { shownValues } from "../../../support/shown-values.js";
import { harnessContext, runTrainer } from "../../../support/trainer-harness.js";

// ------------------------------------------------------------------------------------------ fixtures

interface TableTaskOptions {
  /** Text parameters and their initial values. */
  readonly params: Readonly<Record<string, string>>;
  /** Score of the candidate on instance `i` (the example's info). */
  readonly score: (values: ParameterValues, instance: number) => number;
  /** Instances in the validate set (the Pareto subset is drawn from it); none = no validate set. */
  readonly validate?: number;
  /** Instances in the train set. */
  readonly train?: number;
  /** Delay (ms) of the agent on instance i, to scramble completion order. */
  readonly delay?: (instance: number) => number;
}

/**
 * A task whose agent echoes its parameter values and whose guide scores them from a table per
 * instance, so per-instance scores (and with them Pareto wins) are fully under the test's control.
 */
function tableTask(options: TableTaskOptions): TaskBundle {
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  const train = range(options.train ?? 1);
  const validate = options.validate === undefined ? undefined : range(options.validate);
  return {
    taskId: "test:table",
    parameters: Object.entries(options.params).map(([name, value]) => ({ name, kind: "text", value, description: `parameter ${name}`, trainable: true })),
    agent: {
      name: "TableAgent",
      async run(input, values) {
        const ms = options.delay?.(input as number) ?? 0;
        if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
        return { ...values };
      },
    },
    guide: {
      name: "TableGuide",
      evaluate(_input, response, info) {
        const score = options.score(response as ParameterValues, info as number);
        return { score, feedback: `score on instance ${String(info)}: ${score}` };
      },
    },
    train_dataset: { inputs: train, infos: train },
    ...(validate ? { validate_dataset: { inputs: validate, infos: validate } } : {}),
    optimizer_kwargs: {},
    metadata: { benchmark: "test", entry: "TableAgent" },
  };
}

/** Score table keyed by the joined values of the parameters (missing rows score 0). */
function table(rows: Readonly<Record<string, readonly number[]>>, names: readonly string[]) {
  return (values: ParameterValues, instance: number) => rows[names.map((n) => String(values[n])).join(",")]?.[instance] ?? 0;
}

/**
 * An Rng that returns the given draws in order, then `fallback`; `int(n)` = floor(next() · n).
 * Its forks share its queue, so the draws are listed in the order the trainer makes them, whichever
 * stream ("gepa/numpy" or "gepa/random") asks.
 */
function fakeRng(draws: readonly number[], fallback = 0): Rng {
  const queue = [...draws];
  const next = () => (queue.length > 0 ? queue.shift()! : fallback);
  const rng: Rng = { next, int: (n) => Math.floor(next() * n), fork: () => rng };
  return rng;
}

/** Runs a trainer on the harness context with a replaced Rng (to control every draw). */
async function runWithRng(trainer: Trainer, bundle: TaskBundle, llm: Llm, kwargs: Kwargs, rng: Rng) {
  const { context, events } = harnessContext(bundle, llm, { kwargs });
  const result = await trainer.train({ ...context, rng });
  const iterations = events.filter((e) => e.type === "IterationCompleted").map((e) => e.data as Record<string, unknown>);
  return { values: result.values, iterations };
}

const notesOf = (iteration: Record<string, unknown> | undefined) => ((iteration?.notes as string[] | undefined) ?? []).join("\n");

// --------------------------------------------------------------------------------------------- tests

describe("GEPA costs: one optimizer call per iteration; train_batch_size + Pareto subset evaluations", () => {
  it("counts LLM calls and agent+guide evaluations per iteration", async () => {
    const bundle = tableTask({ params: { mode: "m" }, validate: 4, train: 3, score: (v, i) => (String(v.mode).length + i) % 3 });
    const llm = scriptedLlm([0, 1, 2].map((k) => () => xmlReply({ mode: `m${"x".repeat(k + 1)}` })));
    const run = await runTrainer(gepaBaseTrainer, bundle, llm, { kwargs: { num_iters: 3, train_batch_size: 2, pareto_subset_size: 3, merge_every: 0 } });
    expect(llm.requests).toHaveLength(3);
    expect(run.iterations.map((i) => i.step)).toEqual([1, 2, 3]);
    expect(run.iterations.map((i) => i.llm_calls)).toEqual([1, 2, 3]);
    // Iteration 1 also pays for the seed's Pareto evaluation (3): 3 + 2 + 3, then 2 + 3 per iteration.
    expect(run.iterations.map((i) => i.evaluations)).toEqual([8, 13, 18]);
    // The minibatch (2 train examples) is what the optimizer sees.
    expect(llm.requests[0]!.messages[1]!.content).toContain("ID [1]:");
    expect(llm.requests[0]!.messages[1]!.content).not.toContain("ID [2]:");
  });

  it("caps the Pareto subset and the minibatch at the dataset sizes and falls back to the train set", async () => {
    const bundle = tableTask({ params: { mode: "m" }, train: 2, score: () => 1 });
    const llm = scriptedLlm([xmlReply({ mode: "n" })]);
    const run = await runTrainer(gepaUcbTrainer, bundle, llm, { kwargs: { num_search_iterations: 1, train_batch_size: 5, pareto_subset_size: 24 } });
    expect(run.iterations[0]!.evaluations).toBe(2 + 2 + 2);
  });

  it("uses one persistent optimizer for the whole run", async () => {
    const bundle = tableTask({ params: { mode: "m" }, validate: 2, score: () => 1 });
    const llm = scriptedLlm([0, 1, 2].map((k) => xmlReply({ mode: `m${k}` })));
    const { context } = harnessContext(bundle, llm, { kwargs: { num_search_iterations: 3, merge_every: 0, pareto_subset_size: 2 } });
    let created = 0;
    await gepaBeamTrainer.train({
      ...context,
      createOptimizer: () => {
        created++;
        return context.createOptimizer();
      },
    });
    expect(created).toBe(1);
    expect(llm.requests).toHaveLength(3);
  });
});

describe("GEPA budgets", () => {
  it.each([
    ["GEPA-Base", gepaBaseTrainer, { num_iters: 2, num_search_iterations: 5 }, 2],
    ["GEPA-UCB", gepaUcbTrainer, { num_search_iterations: 3, num_iters: 5 }, 3],
    ["GEPA-Beam", gepaBeamTrainer, { num_search_iterations: 1, num_iters: 5 }, 1],
  ] as const)("%s runs exactly its own iteration budget", async (_id, trainer, budget, expected) => {
    const bundle = tableTask({ params: { mode: "m" }, validate: 2, score: (v) => String(v.mode).length });
    const llm = scriptedLlm(Array.from({ length: 6 }, (_, k) => () => xmlReply({ mode: `m${"x".repeat(k + 1)}` })));
    const run = await runTrainer(trainer, bundle, llm, { kwargs: { ...budget, train_batch_size: 2, merge_every: 2, pareto_subset_size: 2 } });
    expect(llm.requests).toHaveLength(expected);
    expect(run.iterations).toHaveLength(expected);
    expect(run.iterations.at(-1)!.llm_calls).toBe(expected);
  });

  it("with a budget of 0 only scores the seed and returns the initial values", async () => {
    const bundle = tableTask({ params: { mode: "m" }, validate: 2, score: () => 1 });
    const llm = scriptedLlm([]);
    const run = await runTrainer(gepaBaseTrainer, bundle, llm, { kwargs: { num_iters: 0 } });
    expect(llm.requests).toHaveLength(0);
    expect(run.iterations).toHaveLength(0);
    expect(run.values).toEqual({ mode: "m" });
  });
});

describe("GEPA Pareto parent choice", () => {
  // Seed "s" scores [0,0,0]; child "c1" [10,0,0] (best mean, 1 win); child "c2" [0,1,1] (2 wins).
  // Weights at iteration 3: s 1, c1 1, c2 2 (of 4). Uniform sampling would split thirds.
  const score = table({ s: [0, 0, 0], c1: [10, 0, 0], c2: [0, 1, 1] }, ["mode"]);
  const bundle = () => tableTask({ params: { mode: "s" }, validate: 3, train: 1, score });

  /** The parent draw of iteration 3, replaying the trainer's documented draw order. */
  function iteration3Draw(seed: number): number {
    const root = createRng(seed);
    root.fork("gepa/numpy"); // Pareto subset and minibatches: not this stream
    const random = root.fork("gepa/random");
    random.next(); // iteration 1: parent
    random.next(); // iteration 2: parent
    return random.next(); // iteration 3: parent
  }
  const seedWithDraw = (low: number, high: number) => {
    for (let seed = 1; seed < 10_000; seed++) {
      const u = iteration3Draw(seed);
      if (u >= low && u < high) return seed;
    }
    throw new Error("no seed found");
  };

  async function parentAtIteration3(seed: number) {
    const llm = scriptedLlm([xmlReply({ mode: "c1" }), xmlReply({ mode: "c2" }), xmlReply({ mode: "c3" })]);
    const run = await runTrainer(gepaBaseTrainer, bundle(), llm, { seed, kwargs: { num_iters: 3, train_batch_size: 1, merge_every: 0, pareto_subset_size: 3 } });
    expect(llm.requests).toHaveLength(3);
    // After iteration 2 the best by mean is c1, whatever wins say.
    expect(run.iterations[1]!.values).toEqual({ mode: "c1" });
    expect(run.iterations[1]!.best_score).toBeCloseTo(10 / 3);
    return shownValues(llm.requests[2]).mode;
  }

  it("picks the 2-win candidate where wins-weighting and uniform/mean choice disagree", async () => {
    // u ∈ [0.5, 2/3): wins-weighted → c2; uniform → c1; greedy by mean → c1.
    expect(await parentAtIteration3(seedWithDraw(0.5, 2 / 3))).toBe("c2");
  });

  it("gives every candidate weight ≥ 1, so the 0-win and 1-win candidates get a quarter each", async () => {
    // u ∈ [0.25, 1/3): wins-weighted → c1 (uniform would give s).
    expect(await parentAtIteration3(seedWithDraw(0.25, 1 / 3))).toBe("c1");
    // u < 0.25: the seed, which wins nothing.
    expect(await parentAtIteration3(seedWithDraw(0, 0.25))).toBe("s");
  });
});

describe("GEPA mutation", () => {
  it("scores a child on top of the values the agent holds (the child stores only what the reply named)", async () => {
    const bundle = tableTask({ params: { x: "x0", y: "y0" }, validate: 2, score: table({ "x1,y0": [1, 1], "x1,y1": [3, 3], "x0,y1": [2, 2] }, ["x", "y"]) });
    // Iteration 1: child {x: x1} from the seed. Iteration 2: parent draw 0.9 → that child; reply {y: y1}.
    // Iteration 3: parent draw 0 → the seed (x0, y0) is applied; TERMINATE → its copy.
    const llm = scriptedLlm([xmlReply({ x: "x1" }), xmlReply({ y: "y1" }), "TERMINATE"]);
    const run = await runWithRng(gepaBaseTrainer, bundle, llm, { num_iters: 3, merge_every: 0, pareto_subset_size: 2, train_batch_size: 1 }, fakeRng([0 /* Pareto shuffle */, 0, 0.9, 0 /* parents */]));
    expect(run.iterations.map((i) => i.score)).toEqual([1, 3, 0]);
    expect(shownValues(llm.requests[2])).toEqual({ x: "x0", y: "y0" });
    // The best, {y: y1} (scored 3 with x1), is applied last on top of x0: the agent ends on (x0, y1).
    expect(run.iterations.at(-1)!.best_score).toBe(3);
    expect(run.values).toEqual({ x: "x0", y: "y1" });
  });

  it("adds the child even when it is worse than its parent (no acceptance gate)", async () => {
    const bundle = tableTask({ params: { mode: "good" }, validate: 2, score: table({ good: [5, 5], bad: [1, 1] }, ["mode"]) });
    const llm = scriptedLlm([xmlReply({ mode: "bad" }), (request) => xmlReply({ mode: `${String(shownValues(request).mode)}!` })]);
    // Draws: Pareto shuffle, iteration 1 parent, iteration 2 parent = 0.9 → the second candidate (the bad child).
    const run = await runWithRng(gepaBaseTrainer, bundle, llm, { num_iters: 2, merge_every: 0, pareto_subset_size: 2, train_batch_size: 1 }, fakeRng([0, 0, 0.9]));
    expect(run.iterations[0]).toMatchObject({ score: 1, best_score: 5, values: { mode: "good" } });
    expect(shownValues(llm.requests[1]).mode).toBe("bad");
    expect(run.values).toEqual({ mode: "good" });
  });

  it.each([
    ["an unreadable reply", "I would rather not answer in XML.", /unreadable reply[\s\S]*GEPA-Base: no proposed value could be used; the child of #0 is a copy of the agent's values/],
    ["TERMINATE", "<reasoning>All good. TERMINATE</reasoning>", /GEPA-Base: the optimizer answered TERMINATE; the child of #0 is a copy of the agent's values/],
  ])("adds a copy of the agent's values as the child for %s, scored on the Pareto subset (as the reference: gepa-code)", async (_label, reply, note) => {
    const bundle = tableTask({ params: { mode: "s" }, validate: 2, score: table({ s: [1, 1] }, ["mode"]) });
    const llm = scriptedLlm([reply]);
    const run = await runTrainer(gepaBaseTrainer, bundle, llm, { kwargs: { num_iters: 1, merge_every: 0, pareto_subset_size: 2, train_batch_size: 1 } });
    // Seed 2 + minibatch 1 + the copy 2.
    expect(run.iterations[0]).toMatchObject({ step: 1, score: 1, best_score: 1, values: { mode: "s" }, llm_calls: 1, evaluations: 5 });
    expect(notesOf(run.iterations[0])).toMatch(note);
  });

  it("an optimizer error skips the iteration: no child, no merge (as in Python)", async () => {
    const bundle = tableTask({ params: { mode: "s" }, validate: 2, score: () => 1 });
    const run = await runTrainer(gepaUcbTrainer, bundle, scriptedLlm([]), { kwargs: { num_search_iterations: 1, merge_every: 1, pareto_subset_size: 2, train_batch_size: 1 } });
    expect(run.iterations[0]).toMatchObject({ score: null, best_score: 1, evaluations: 3 });
    expect(notesOf(run.iterations[0])).toMatch(/the optimizer failed: scripted LLM: unexpected call #1/);
    expect(notesOf(run.iterations[0])).not.toMatch(/merge/);
  });

  it("reports an invalid child (an example failed) with score null and ranks it last", async () => {
    const score = (v: ParameterValues, i: number) => {
      if (v.mode === "broken" && i === 1) throw new Error("guide exploded");
      return v.mode === "broken" ? 5 : 1; // broken is better where it does not fail
    };
    const bundle = tableTask({ params: { mode: "s" }, validate: 2, score });
    const llm = scriptedLlm([xmlReply({ mode: "broken" })]);
    const run = await runTrainer(gepaBeamTrainer, bundle, llm, { kwargs: { num_search_iterations: 1, pareto_subset_size: 2, train_batch_size: 1, merge_every: 0 } });
    expect(run.iterations[0]).toMatchObject({ score: null, best_score: 1, values: { mode: "s" } });
    expect(notesOf(run.iterations[0])).toMatch(/failed on part of the Pareto subset/);
    expect(run.values).toEqual({ mode: "s" });
  });
});

describe("GEPA merge", () => {
  // Seed (x0,y0) [0,0]; iteration 1 child C1 = (x1,y0) [4,0] mean 2; iteration 2 child C2 = (x0,y1)
  // [0,2] mean 1 from the seed, so C1 and C2 are not related. Merge at iteration 2: pool by
  // (wins, mean) = C1, C2, seed; pair draws (0, 0) → (C1, C2); crossover draws 0 → x from C1, 0.9 → y
  // from C2: the merged candidate is (x1,y1).
  const draws = [0 /* Pareto shuffle */, 0 /* it 1 parent */, 0 /* it 2 parent: seed */, 0, 0 /* pair */, 0, 0.9 /* crossover */];
  const kwargs = { num_iters: 2, merge_every: 2, pareto_subset_size: 2, train_batch_size: 1 };
  const replies = () => [xmlReply({ x: "x1" }), xmlReply({ y: "y1" })];
  const scores = (merged: readonly number[]) => table({ "x0,y0": [0, 0], "x1,y0": [4, 0], "x0,y1": [0, 2], "x1,y1": merged }, ["x", "y"]);

  it("accepts a merged candidate whose mean beats both parents", async () => {
    const bundle = tableTask({ params: { x: "x0", y: "y0" }, validate: 2, score: scores([4, 2]) }); // mean 3 > 2, 1
    const llm = scriptedLlm(replies());
    const run = await runWithRng(gepaBaseTrainer, bundle, llm, kwargs, fakeRng(draws));
    expect(shownValues(llm.requests[1])).toEqual({ x: "x0", y: "y0" });
    const second = run.iterations[1]!;
    expect(second).toMatchObject({ score: 1, best_score: 3, values: { x: "x1", y: "y1" }, llm_calls: 2 });
    // Iteration 1: seed 2 + minibatch 1 + child 2; iteration 2: 1 + 2 + one merge evaluation of 2.
    expect(run.iterations.map((i) => i.evaluations)).toEqual([5, 10]);
    expect(notesOf(second)).toMatch(/merge: #1×#2 → #3 mean 3 beats both parents \(2, 1\): accepted/);
    expect(run.values).toEqual({ x: "x1", y: "y1" });
  });

  it("rejects a merged candidate that beats only one parent", async () => {
    const bundle = tableTask({ params: { x: "x0", y: "y0" }, validate: 2, score: scores([3, 0]) }); // mean 1.5: > 1, < 2
    const llm = scriptedLlm(replies());
    const run = await runWithRng(gepaBaseTrainer, bundle, llm, kwargs, fakeRng(draws));
    const second = run.iterations[1]!;
    // The best is C1 {x: x1}, applied on top of the rejected merge (x1, y1) the agent holds last.
    expect(second).toMatchObject({ score: 1, best_score: 2, values: { x: "x1", y: "y1" } });
    // The pair is tried once (the other 7 tries redraw it and skip it): one merge evaluation.
    expect(run.iterations.map((i) => i.evaluations)).toEqual([5, 10]);
    expect(notesOf(second)).toMatch(/merge: #1×#2 mean 1\.5 does not beat both parents \(2, 1\); nothing accepted/);
    expect(run.values).toEqual({ x: "x1", y: "y1" });
  });

  it("never merges candidates related by ancestry", async () => {
    const bundle = tableTask({ params: { x: "x0", y: "y0" }, validate: 2, score: scores([9, 9]) });
    const llm = scriptedLlm(replies());
    // Iteration 2's parent is C1 (draw 0.9), so C2 descends from C1 and every pair is related.
    const run = await runWithRng(gepaBaseTrainer, bundle, llm, kwargs, fakeRng([0, 0, 0.9], 0.7));
    expect(shownValues(llm.requests[1])).toEqual({ x: "x1", y: "y0" });
    expect(run.iterations.map((i) => i.evaluations)).toEqual([5, 8]);
    expect(notesOf(run.iterations[1])).toMatch(/merge: no eligible pair/);
    expect(run.values).toEqual({ x: "x1", y: "y1" }); // C2 itself is (x1,y1)
  });

  it("takes a parameter only one parent has from that parent, without a draw", async () => {
    const bundle = tableTask({ params: { x: "x0", y: "y0" }, validate: 2, score: scores([4, 2]) });
    const llm = scriptedLlm(replies());
    // C1 = {x: x1} and C2 = {y: y1} share no parameter: the merge is {x1, y1} whatever the draws.
    const run = await runWithRng(gepaBaseTrainer, bundle, llm, kwargs, fakeRng([0, 0, 0, 0, 0], 0.99));
    expect(run.iterations.map((i) => i.evaluations)).toEqual([5, 10]);
    expect(notesOf(run.iterations[1])).toMatch(/merge: #1×#2 → #3 mean 3 beats both parents \(2, 1\): accepted/);
  });
});

describe("GEPA buffer limits", () => {
  it("GEPA-UCB evicts the lowest (wins, mean) beyond max_buffer_size", async () => {
    const bundle = tableTask({ params: { mode: "a" }, validate: 1, score: (v) => String(v.mode).length });
    const llm = scriptedLlm([xmlReply({ mode: "bb" }), xmlReply({ mode: "ccc" })]);
    // The parent draw 0.9 picks the last candidate each time.
    const kwargs = { num_search_iterations: 2, max_buffer_size: 2, merge_every: 0, pareto_subset_size: 1, train_batch_size: 1 };
    const run = await runWithRng(gepaUcbTrainer, bundle, llm, kwargs, fakeRng([], 0.9));
    expect(notesOf(run.iterations[0])).toBe("");
    // GEPA-UCB numbers candidates from 1: the seed is #1.
    expect(notesOf(run.iterations[1])).toMatch(/GEPA-UCB: evicted #1 \(lowest wins, mean\)/);
    expect(run.iterations[1]).toMatchObject({ best_score: 3, values: { mode: "ccc" } });
  });
});

describe("GEPA determinism", () => {
  const numbers = (): TaskBundle => ({
    taskId: "test:numbers",
    parameters: [
      { name: "a", kind: "number", value: 0, description: "first", trainable: true },
      { name: "b", kind: "number", value: 0, description: "second", trainable: true },
    ],
    agent: {
      name: "Numbers",
      async run(input, values) {
        await new Promise((resolve) => setTimeout(resolve, (4 - (input as number)) % 3));
        return (input as number) % 2 === 0 ? values.a : values.b;
      },
    },
    guide: { name: "Target", evaluate: (input, response) => ({ score: -Math.abs(Number(response) - (input as number)), feedback: `target ${String(input)}` }) },
    train_dataset: { inputs: [0, 1, 2, 3], infos: [0, 1, 2, 3] },
    validate_dataset: { inputs: [1, 2, 3, 4], infos: [1, 2, 3, 4] },
    optimizer_kwargs: {},
    metadata: {},
  });
  const kwargs = { num_search_iterations: 6, train_batch_size: 2, merge_every: 2, pareto_subset_size: 3 };

  it("gives identical histories for the same seed, whatever num_threads", async () => {
    const one = await runTrainer(gepaUcbTrainer, numbers(), createStubLlm(5), { seed: 5, kwargs: { ...kwargs, num_threads: 1 } });
    const again = await runTrainer(gepaUcbTrainer, numbers(), createStubLlm(5), { seed: 5, kwargs: { ...kwargs, num_threads: 1 } });
    const parallel = await runTrainer(gepaUcbTrainer, numbers(), createStubLlm(5), { seed: 5, kwargs: { ...kwargs, num_threads: 4 } });
    expect(one.iterations).toHaveLength(6);
    expect(again.iterations).toEqual(one.iterations);
    expect(again.values).toEqual(one.values);
    expect(parallel.iterations).toEqual(one.iterations);
    const other = await runTrainer(gepaUcbTrainer, numbers(), createStubLlm(6), { seed: 6, kwargs });
    expect(other.iterations).not.toEqual(one.iterations);
  });
});

describe("GEPA-Base with the stub LLM", () => {
  it.each([1, 2, 3])("on internal:numeric_param ends on the best of the seed and every child, and reports it (seed %i)", async (seed) => {
    // Any search beats −3 with the stub's proposals; a wrong best (newest, last parent, a trimmed
    // winner) breaks this: the reported best is the maximum over the seed (−3) and each child's
    // score, and the final agent scores exactly that (one parameter, so nothing partial is left).
    const bundle = await builtinTaskRegistry().load("internal:numeric_param", {});
    const kwargs = { num_iters: 6, train_batch_size: 2, merge_every: 2, pareto_subset_size: 2 };
    const run = await runTrainer(gepaBaseTrainer, bundle, createStubLlm(seed), { seed, kwargs });
    expect(run.iterations).toHaveLength(6);
    expect(run.iterations.at(-1)!.llm_calls).toBe(6);
    const childScores = run.iterations.map((i) => i.score as number);
    run.iterations.forEach((it, i) => expect(it.best_score).toBe(Math.max(-3, ...childScores.slice(0, i + 1))));
    expect(-Math.abs(Number(run.values.value) - 3)).toBe(run.iterations.at(-1)!.best_score);
  });
});
