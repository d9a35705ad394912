import { describe, expect, it } from "vitest";
import { builtinTaskRegistry } from "../../../../adapters/tasks/index.js";
import { negativeAbsoluteError } from "../../../../adapters/tasks/guides.js";
import { createStubLlm } from "../../../../adapters/llm/stub-llm.js";
import type { ChatRequest } from "../../../../src/llm/llm.js";
import type { Optimizer } from "../../../../src/opt/optimizer.js";
import { HeapMemory, SearchMemories, type SearchCandidate } from "../../../../src/opt/trainers/priority-search-memory.js";
import {
  prioritySearchTrainer,
  readPrioritySearchOptions,
  runPrioritySearch,
  type IterationSnapshot,
} from "../../../../src/opt/trainers/priority-search.js";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { shownValues } from "../../../support/shown-values.js";
import { valueAgent } from "../../../support/parity.js";
import { harnessContext, runTrainer } from "../../../support/trainer-harness.js";

/** Trace-Bench's resolved defaults for PrioritySearch (spec §2.6). */
const TB_DEFAULTS = { num_epochs: 1, num_steps: 1, num_batches: 1, num_candidates: 2, num_proposals: 2 };

/** One float `value` (0.0) with target 3.0: numeric_param's search problem as an untraced agent, so prompts name it `value`. */
const numericParam = async () => valueAgent({ inputs: [null], targets: [3.0] });

/** One float `value`; example i scores −|value − targets[i]|. */
function targetsTask(targets: readonly number[], validate?: readonly number[]): TaskBundle {
  return {
    taskId: "test:targets",
    parameters: [{ name: "value", kind: "number", value: 0, description: "A number.", trainable: true }],
    agent: { name: "Echo", run: (_input, values) => values.value },
    guide: negativeAbsoluteError,
    train_dataset: { inputs: targets.map((_, i) => i), infos: [...targets] },
    ...(validate ? { validate_dataset: { inputs: validate.map((_, i) => i), infos: [...validate] } } : {}),
    optimizer_kwargs: {},
    metadata: {},
  };
}

/** The value of `value` the optimizer was shown in a request. */
const shownValue = (request: ChatRequest) => shownValues(request).value;

const reply = (value: number) => xmlReply({ value });

describe("PrioritySearch", () => {
  it("with Trace-Bench defaults on a one-example task: one proposing iteration, E·K·P = 4 optimizer calls, keeps the best", async () => {
    const llm = scriptedLlm([reply(1.0), reply(2.5), reply(4.0), reply(3.25)]);
    const run = await runTrainer(prioritySearchTrainer, await numericParam(), llm, { kwargs: TB_DEFAULTS });
    expect(llm.remaining()).toBe(0);
    expect(run.iterations).toHaveLength(1);
    const [it1] = run.iterations;
    // E·B·K exploration (2) + new·B·K validation (4).
    expect(it1).toMatchObject({ step: 1, llm_calls: 4, evaluations: 6, score: -0.25, best_score: -0.25, values: { value: 3.25 } });
    expect(run.values).toEqual({ value: 3.25 });
    // Both exploration candidates are copies of the initial agent.
    expect(llm.requests.map(shownValue)).toEqual([0, 0, 0, 0]);
  });

  it("explores the highest-priority candidates next and returns the best", async () => {
    const llm = scriptedLlm([reply(2.0), reply(4.5), reply(2.75), reply(3.5)]);
    const run = await runTrainer(prioritySearchTrainer, await numericParam(), llm, {
      kwargs: { num_epochs: 0, num_steps: 3, num_candidates: 2, num_proposals: 1 },
    });
    expect(llm.remaining()).toBe(0);
    // Iteration 2 explores the best (2.0, mean −1) then the next priority (4.5, −1.5), not the initial copies (−3).
    expect(llm.requests.map(shownValue)).toEqual([0, 0, 2.0, 4.5]);
    expect(run.iterations.map((i) => [i.step, i.llm_calls, i.evaluations, i.score, i.best_score])).toEqual([
      [1, 2, 4, -1, -1],
      [2, 4, 8, -0.25, -0.25],
    ]);
    expect(run.values).toEqual({ value: 2.75 });
  });

  it("splits each batch into num_batches sub-batches: one optimizer call per (candidate, sub-batch, proposal)", async () => {
    const llm = scriptedLlm(Array.from({ length: 4 }, (_, i) => reply(10 + i)));
    const run = await runTrainer(prioritySearchTrainer, targetsTask([1, 2, 3, 4]), llm, {
      kwargs: { num_epochs: 0, num_steps: 2, batch_size: 1, num_batches: 2, num_candidates: 2, num_proposals: 1 },
    });
    expect(llm.remaining()).toBe(0);
    // E·K·P = 2·2·1 calls; evaluations E·B·K (4) + new·B·K (4·2).
    expect(run.iterations).toMatchObject([{ step: 1, llm_calls: 4, evaluations: 12 }]);
    for (const request of llm.requests) {
      const user = request.messages.at(-1)!.content;
      expect(user).toContain("ID [0]:");
      expect(user).not.toContain("ID [1]:");
    }
  });

  it("shows a whole sub-batch of batch_size examples in one prompt (batch_size via Trace-Bench's train_batch_size alias too)", async () => {
    for (const kwargs of [{ batch_size: 2 }, { train_batch_size: 2 }]) {
      const llm = scriptedLlm([reply(5)]);
      const run = await runTrainer(prioritySearchTrainer, targetsTask([1, 2, 3, 4]), llm, {
        kwargs: { num_epochs: 0, num_steps: 2, num_candidates: 1, num_proposals: 1, ...kwargs },
      });
      expect(run.iterations).toMatchObject([{ llm_calls: 1, evaluations: 4 }]);
      expect(llm.requests[0]!.messages.at(-1)!.content).toContain("ID [1]:");
    }
  });

  it("validates on a fresh validate-set batch and re-runs the exploration candidates there (+E·B·K)", async () => {
    const bundle = targetsTask([3], [3, 3, 3]);
    const llm = scriptedLlm([reply(1), reply(2)]);
    const run = await runTrainer(prioritySearchTrainer, bundle, llm, { kwargs: { num_epochs: 0, num_steps: 2, num_candidates: 2, num_proposals: 1 } });
    // 2 exploration + 2 new on a validate batch + 2 exploration on another validate batch.
    expect(run.iterations).toMatchObject([{ llm_calls: 2, evaluations: 6, values: { value: 2 } }]);

    const llm2 = scriptedLlm([reply(1), reply(2)]);
    const run2 = await runTrainer(prioritySearchTrainer, bundle, llm2, {
      kwargs: { num_epochs: 0, num_steps: 2, num_candidates: 2, num_proposals: 1, validate_exploration_candidates: false },
    });
    expect(run2.iterations).toMatchObject([{ llm_calls: 2, evaluations: 4 }]);
  });

  it("drops an unreadable or TERMINATE reply, keeps the parameters and records a note", async () => {
    const llm = scriptedLlm(["I am not sure what to do.", "<reasoning>\nAll good.\n</reasoning>\nTERMINATE"]);
    const run = await runTrainer(prioritySearchTrainer, await numericParam(), llm, {
      kwargs: { num_epochs: 0, num_steps: 2, num_candidates: 1, num_proposals: 2 },
    });
    expect(run.values).toEqual({ value: 0 });
    expect(run.iterations).toHaveLength(1);
    const [it1] = run.iterations;
    expect(it1).toMatchObject({ step: 1, llm_calls: 2, evaluations: 1, score: -3, values: { value: 0 } });
    const notes = it1!.notes as string[];
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/proposal dropped.*unreadable reply/);
    expect(notes[1]).toMatch(/proposal dropped.*TERMINATE/);
  });

  it("fills parameters a partial update leaves out from the candidate it improves", async () => {
    const bundle = await builtinTaskRegistry().load("internal:multi_param", {});
    // float1 is b in multi_param's traced graph.
    const llm = scriptedLlm([xmlReply({ float1: 2 })]);
    const run = await runTrainer(prioritySearchTrainer, bundle, llm, { kwargs: { num_epochs: 0, num_steps: 2, num_candidates: 1, num_proposals: 1 } });
    expect(run.values).toEqual({ a: 1, b: 2 });
    expect(run.iterations).toMatchObject([{ score: 0 }]);
  });

  describe("budgets", () => {
    it("num_epochs: one proposing iteration per batch of the epoch (floor(N / B·K)); num_steps counts iteration 0", async () => {
      const cases: [Record<string, unknown>, number][] = [
        [{ num_epochs: 1, num_steps: 1 }, 3],
        [{ num_epochs: 2, num_steps: 1 }, 6],
        [{ num_epochs: 0, num_steps: 5 }, 4],
        [{ num_epochs: 0, num_steps: 1 }, 0],
        [{ num_epochs: 1, num_steps: 1, batch_size: 2 }, 1],
        [{ num_epochs: 0, num_steps: 0 }, 0],
      ];
      for (const [kwargs, iterations] of cases) {
        const run = await runTrainer(prioritySearchTrainer, targetsTask([1, 2, 3]), createStubLlm(3), {
          kwargs: { num_candidates: 2, num_proposals: 1, ...kwargs },
        });
        expect(run.iterations.map((i) => i.step), JSON.stringify(kwargs)).toEqual(Array.from({ length: iterations }, (_, i) => i + 1));
        expect(run.llmCalls.length).toBe(iterations * 2);
      }
    });

    it("a first batch that already wraps the epoch (N < B·K) ends training before any proposal", async () => {
      const llm = scriptedLlm([]);
      const run = await runTrainer(prioritySearchTrainer, await numericParam(), llm, { kwargs: { ...TB_DEFAULTS, batch_size: 2 } });
      expect(run.iterations).toEqual([]);
      expect(run.values).toEqual({ value: 0 });
    });

    it("costs E·K·P optimizer calls and E·B·K + new·B·K evaluations every iteration", async () => {
      const run = await runTrainer(prioritySearchTrainer, targetsTask([1, 2, 3, 4, 5, 6]), createStubLlm(11), {
        kwargs: { num_epochs: 0, num_steps: 4, batch_size: 1, num_batches: 2, num_candidates: 3, num_proposals: 2 },
      });
      expect(run.iterations).toHaveLength(3);
      let calls = 0;
      let evaluations = 0;
      for (const it of run.iterations) {
        const stepCalls = (it.llm_calls as number) - calls;
        const stepEvaluations = (it.evaluations as number) - evaluations;
        calls = it.llm_calls as number;
        evaluations = it.evaluations as number;
        const e = 3;
        expect(stepCalls).toBe(e * 2 * 2);
        // The stub always proposes a change, so new = E·K·P.
        expect(stepEvaluations).toBe(e * 1 * 2 + e * 2 * 2 * 1 * 2);
      }
    });
  });

  it("is deterministic: same seed, same emitted history (whatever num_threads)", async () => {
    const kwargs = { num_epochs: 0, num_steps: 4, num_batches: 2, num_candidates: 3, num_proposals: 2 };
    const history = async (seed: number, threads: number) =>
      (await runTrainer(prioritySearchTrainer, targetsTask([2, 3, 4, 3]), createStubLlm(seed), { kwargs: { ...kwargs, num_threads: threads }, seed })).iterations;
    const first = await history(5, 1);
    expect(await history(5, 1)).toEqual(first);
    expect(await history(5, 4)).toEqual(first);
    expect(first).toHaveLength(3);
  });

  it("with the stub LLM, ends on the best candidate it ever scored and reports that candidate's score", async () => {
    // Any search beats −3 with the stub's spread of proposals; what a wrong exploit step (newest,
    // last explored, a candidate dropped from memory) breaks is: the final values are those of
    // the highest mean among every candidate created, and the score reported is that mean.
    const bundle = await numericParam();
    const snapshots: IterationSnapshot[] = [];
    const { context, events } = harnessContext(bundle, createStubLlm(1), { kwargs: { ...TB_DEFAULTS, num_steps: 5 } });
    const result = await runPrioritySearch(context, readPrioritySearchOptions({ ...TB_DEFAULTS, num_steps: 5 }, "PrioritySearch"), (s) => snapshots.push(s));
    expect(snapshots).toHaveLength(4);
    const score = (values: Record<string, unknown>) => -Math.abs(Number(values.value) - 3);
    const created = snapshots.flatMap((s) => s.created);
    expect(created.length).toBeGreaterThan(4);
    const best = Math.max(score(context.initialValues), ...created.map((c) => score(c.values)));
    expect(score(result.values)).toBe(best);
    const last = events.filter((e) => e.type === "IterationCompleted").at(-1)!.data as Record<string, unknown>;
    expect([last.score, last.best_score]).toEqual([best, best]);
  });

  it("score_function 'ucb' with a finite score_range: clipped mean + bonus", async () => {
    const run = await runTrainer(prioritySearchTrainer, await numericParam(), createStubLlm(2), {
      kwargs: { ...TB_DEFAULTS, num_steps: 3, score_function: "ucb", score_range: [-10, 0] },
    });
    expect(run.iterations).toHaveLength(2);

    // UCB = clip(mean + c·sqrt(ln(n_iters + 2) / n)·(max − min), min, max), frozen at push time.
    const observed: IterationSnapshot[] = [];
    const { context } = harnessContext(await numericParam(), scriptedLlm([reply(2), reply(4.5)]));
    const options = readPrioritySearchOptions(
      { num_epochs: 0, num_steps: 2, num_candidates: 1, num_proposals: 2, score_function: "ucb", score_range: [-10, 0], ucb_exploration_constant: 0.05 },
      "PrioritySearch",
    );
    await runPrioritySearch(context, options, (s) => observed.push(s));
    expect(observed[0]!.best.values).toEqual({ value: 2 });
    expect(observed[0]!.bestPriority).toBeCloseTo(-1 + 0.05 * Math.sqrt(Math.log(3) / 1) * 10, 12);
  });

  it("an agent that throws scores the bottom of score_range (−∞ by default)", async () => {
    const bundle: TaskBundle = {
      ...targetsTask([3]),
      agent: {
        name: "Picky",
        run: (_input, values) => {
          if ((values.value as number) > 5) throw new Error("too big");
          return values.value;
        },
      },
    };
    const run = await runTrainer(prioritySearchTrainer, bundle, scriptedLlm([reply(9), reply(2)]), {
      kwargs: { num_epochs: 0, num_steps: 2, num_candidates: 1, num_proposals: 2, score_range: [-20, 0] },
    });
    expect(run.iterations).toMatchObject([{ score: -1, values: { value: 2 } }]);

    const observed: IterationSnapshot[] = [];
    const { context } = harnessContext(bundle, scriptedLlm([reply(9)]), { kwargs: {} });
    await runPrioritySearch(context, { ...readPrioritySearchOptions({ num_epochs: 0, num_steps: 2, num_candidates: 1 }, "PrioritySearch") }, (s) => observed.push(s));
    // With the default (infinite) range the crash scores −∞: the candidate never becomes the best.
    expect(observed[0]!.created).toMatchObject([{ values: { value: 9 }, rollouts: 1, mean: -Infinity }]);
    expect(observed[0]!.best.values).toEqual({ value: 0 });
  });

  it("credits each exploration rollout exactly once", async () => {
    const observed: IterationSnapshot[] = [];
    const { context } = harnessContext(targetsTask([3, 3]), createStubLlm(4));
    const options = readPrioritySearchOptions({ num_epochs: 0, num_steps: 4, batch_size: 1, num_batches: 2, num_candidates: 2, num_proposals: 1 }, "PrioritySearch");
    await runPrioritySearch(context, options, (s) => observed.push(s));
    const seen = new Map<number, number>();
    for (const snapshot of observed) {
      for (const c of snapshot.created) {
        expect(c.rollouts).toBe(2); // validated on the B·K = 2 examples of the batch
        seen.set(c.id, c.rollouts);
      }
      for (const c of snapshot.explored) {
        const before = seen.get(c.id) ?? 0;
        // One exploration batch of B·K = 2; the 2 equal initial copies are one candidate (#0), credited with both batches.
        expect(c.rollouts).toBe(before + (snapshot.iteration === 1 ? 4 : 2));
        seen.set(c.id, c.rollouts);
      }
    }
  });

  it("honours the abort signal between phases", async () => {
    const controller = new AbortController();
    const llm = scriptedLlm([
      () => {
        controller.abort(new Error("stop"));
        return reply(1);
      },
    ]);
    const { context } = harnessContext(await numericParam(), llm, { kwargs: { num_epochs: 0, num_steps: 3, num_candidates: 1, num_proposals: 1 } });
    await expect(prioritySearchTrainer.train({ ...context, signal: controller.signal })).rejects.toThrow("stop");
  });

  it("rejects nonsense kwargs with a clear error", () => {
    expect(() => readPrioritySearchOptions({ num_candidates: "many" }, "PrioritySearch")).toThrow(/num_candidates/);
    expect(() => readPrioritySearchOptions({ score_function: "best" }, "PrioritySearch")).toThrow(/score_function/);
    expect(() => readPrioritySearchOptions({ memory_update_frequency: null, short_term_memory_size: 0 }, "PrioritySearch")).toThrow(/short_term_memory_size/);
    expect(readPrioritySearchOptions({ memory_update_frequency: null }, "PrioritySearch").memoryUpdateFrequency).toBeNull();
    expect(readPrioritySearchOptions({}, "PrioritySearch")).toMatchObject({ numCandidates: 10, numProposals: 1, numEpochs: 1, numSteps: 0, memoryUpdateFrequency: 0 });
  });
});

describe("PrioritySearch memory", () => {
  const optimizer = {} as Optimizer;
  let nextId = 0;
  const candidate = (scores: (number | null)[] = []): SearchCandidate => ({ id: nextId++, values: {}, optimizer, parentId: null, scores, inputs: scores.map(() => null) });

  it("keeps an exact top-k and pops the most recent of equal priorities first", () => {
    const memory = new HeapMemory(3);
    const cs = [5, 1, 4, 3, 2].map((p) => ({ p, c: candidate() }));
    for (const { p, c } of cs) memory.push(p, c);
    expect(memory.snapshot().map((e) => e.priority)).toEqual([5, 4, 3]);

    const ties = new HeapMemory(2);
    const [a, b, c] = [candidate(), candidate(), candidate()];
    ties.push(1, a);
    ties.push(1, b);
    ties.push(1, c);
    expect(ties.snapshot().map((e) => e.candidate)).toEqual([c, b]);
    expect(ties.pop()!.candidate).toBe(c);
  });

  it("best() maximises the mean; unscored candidates rank below any score", () => {
    const memory = new HeapMemory();
    const unscored = candidate();
    const low = candidate([-5, -3]);
    const high = candidate([-1, null]);
    memory.push(Infinity, unscored);
    memory.push(-4, low);
    memory.push(-1, high);
    expect(memory.best((c) => (c.scores.length === 0 ? null : c.scores.reduce<number>((s, x) => s + (x ?? 0), 0)))!.candidate).toBe(high);
  });

  it("memory_update_frequency: null → short-term only, 0 → long-term only, k → merge every k iterations", () => {
    const shortOnly = new SearchMemories(Infinity, Infinity, null);
    expect(shortOnly.current(0)).toBe(shortOnly.shortTerm);
    const longOnly = new SearchMemories(Infinity, Infinity, 0);
    expect(longOnly.current(3)).toBe(longOnly.longTerm);

    const merged = new SearchMemories(2, Infinity, 2);
    expect(merged.current(0)).toBe(merged.longTerm);
    const short = merged.current(1);
    expect(short).toBe(merged.shortTerm);
    for (const p of [3, 1, 2]) short.push(p, candidate());
    expect(merged.longTerm.length).toBe(0);
    const long = merged.current(2);
    expect(long).toBe(merged.longTerm);
    expect(merged.shortTerm.length).toBe(0);
    expect(long.snapshot().map((e) => e.priority)).toEqual([3, 2]);
  });
});
