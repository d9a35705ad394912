/** Kwarg resolution (spec §2.6) and merge_kwargs (spec §2.7). */
import { describe, expect, it } from "vitest";
import { mergeKwargs } from "../../../src/config/kwargs.js";
import { builtinTrainerDefaults, resolveTrainerKwargs } from "../../../src/config/trainer-kwargs.js";

const PS_DEFAULTS = { num_epochs: 1, num_steps: 1, num_batches: 1, num_candidates: 2, num_proposals: 2 };
const GEPA_BASE_DEFAULTS = { num_iters: 1, train_batch_size: 2, merge_every: 2, pareto_subset_size: 2 };
const GEPA_SEARCH_DEFAULTS = { num_search_iterations: 1, train_batch_size: 2, merge_every: 2, pareto_subset_size: 2 };

describe("resolveTrainerKwargs: PrioritySearch", () => {
  it("smoke example of §2.6: {ps_steps:1, ps_batches:1} → the five defaults", () => {
    const out = resolveTrainerKwargs({ ps_steps: 1, ps_batches: 1 }, "PrioritySearch");
    expect(out).toEqual(PS_DEFAULTS);
    expect(Object.keys(out)).toEqual(["num_epochs", "num_steps", "num_batches", "num_candidates", "num_proposals"]);
  });

  it("starts from the defaults when no params are given", () => {
    expect(resolveTrainerKwargs({}, "PrioritySearch")).toEqual(PS_DEFAULTS);
  });

  it("maps every ps_* alias, batch_size and ps_mem_update", () => {
    const out = resolveTrainerKwargs(
      { ps_steps: 5, ps_batches: 6, ps_candidates: 7, ps_proposals: 8, ps_mem_update: 3, batch_size: 4 },
      "PrioritySearch",
    );
    expect(out).toEqual({
      num_epochs: 1,
      num_steps: 5,
      num_batches: 6,
      num_candidates: 7,
      num_proposals: 8,
      memory_update_frequency: 3,
      train_batch_size: 4,
    });
    expect(out).not.toHaveProperty("ps_steps");
    expect(out).not.toHaveProperty("batch_size");
  });

  it("maps threads → num_threads and passes unknown keys through", () => {
    expect(resolveTrainerKwargs({ threads: 8, custom_knob: "x", num_epochs: 3 }, "PrioritySearch")).toEqual({
      ...PS_DEFAULTS,
      num_epochs: 3,
      num_threads: 8,
      custom_knob: "x",
    });
  });

  it("later params win when an alias and its target are both given (insertion order)", () => {
    expect(resolveTrainerKwargs({ num_steps: 9, ps_steps: 2 }, "PrioritySearch").num_steps).toBe(2);
    expect(resolveTrainerKwargs({ ps_steps: 2, num_steps: 9 }, "PrioritySearch").num_steps).toBe(9);
  });

  it("leaves gepa_* keys unmapped", () => {
    expect(resolveTrainerKwargs({ gepa_iters: 3, gepa_train_bs: 4 }, "PrioritySearch")).toEqual({
      ...PS_DEFAULTS,
      gepa_iters: 3,
      gepa_train_bs: 4,
    });
  });
});

describe("resolveTrainerKwargs: GEPA", () => {
  it("GEPA-Base: defaults, gepa_iters → num_iters and the shared GEPA aliases", () => {
    expect(resolveTrainerKwargs({}, "GEPA-Base")).toEqual(GEPA_BASE_DEFAULTS);
    expect(
      resolveTrainerKwargs({ gepa_iters: 4, gepa_train_bs: 8, gepa_merge_every: 3, gepa_pareto_subset: 5 }, "GEPA-Base"),
    ).toEqual({ num_iters: 4, train_batch_size: 8, merge_every: 3, pareto_subset_size: 5 });
  });

  it.each(["GEPA-UCB", "GEPA-Beam"])("%s: gepa_iters → num_search_iterations", (trainer) => {
    expect(resolveTrainerKwargs({}, trainer)).toEqual(GEPA_SEARCH_DEFAULTS);
    const out = resolveTrainerKwargs({ gepa_iters: 6, gepa_train_bs: 3 }, trainer);
    expect(out).toEqual({ num_search_iterations: 6, train_batch_size: 3, merge_every: 2, pareto_subset_size: 2 });
    expect(out).not.toHaveProperty("num_iters");
  });

  it("ps_* keys and batch_size stay unmapped on GEPA-Base; threads still maps", () => {
    expect(resolveTrainerKwargs({ ps_steps: 2, batch_size: 16, threads: 2 }, "GEPA-Base")).toEqual({
      ...GEPA_BASE_DEFAULTS,
      ps_steps: 2,
      batch_size: 16,
      num_threads: 2,
    });
  });
});

describe("resolveTrainerKwargs: other trainers and dropped keys", () => {
  it("an external trainer gets no defaults and no ps/gepa aliases, only threads", () => {
    expect(resolveTrainerKwargs({}, "OpenEvolveTrainer")).toEqual({});
    expect(resolveTrainerKwargs({ threads: 3, ps_steps: 1, gepa_iters: 2, iterations: 10 }, "OpenEvolveTrainer")).toEqual({
      num_threads: 3,
      ps_steps: 1,
      gepa_iters: 2,
      iterations: 10,
    });
  });

  it("trainer ids are case-sensitive: prioritysearch gets no defaults", () => {
    expect(resolveTrainerKwargs({ ps_steps: 2 }, "prioritysearch")).toEqual({ ps_steps: 2 });
  });

  it.each(["PrioritySearch", "GEPA-Base", "GEPA-UCB", "Custom"])("%s drops eval_kwargs and optimizer_kwargs", (trainer) => {
    const out = resolveTrainerKwargs({ eval_kwargs: { a: 1 }, optimizer_kwargs: { lr: 1 }, verbose: true }, trainer);
    expect(out).not.toHaveProperty("eval_kwargs");
    expect(out).not.toHaveProperty("optimizer_kwargs");
    expect(out.verbose).toBe(true);
  });

  it("does not share or mutate its inputs", () => {
    const nested = { schedule: [1, 2] };
    const params = { extra: nested };
    const out = resolveTrainerKwargs(params, "PrioritySearch");
    expect(out.extra).toEqual(nested);
    expect(out.extra).not.toBe(nested);
    expect(params).toEqual({ extra: { schedule: [1, 2] } });
    // The defaults table itself must not be modified by a caller.
    (builtinTrainerDefaults("PrioritySearch") as Record<string, unknown>).num_steps = 99;
    expect(resolveTrainerKwargs({}, "PrioritySearch")).toEqual(PS_DEFAULTS);
  });
});

describe("mergeKwargs (§2.7)", () => {
  it("override null/undefined → a deep copy of base", () => {
    const base = { a: { b: 1 } };
    for (const override of [null, undefined]) {
      const out = mergeKwargs(base, override) as typeof base;
      expect(out).toEqual(base);
      expect(out).not.toBe(base);
      expect(out.a).not.toBe(base.a);
    }
  });

  it("base null/undefined → a copy of override", () => {
    const override = [{ lr: 1 }];
    for (const base of [null, undefined]) {
      const out = mergeKwargs(base, override);
      expect(out).toEqual(override);
      expect(out).not.toBe(override);
    }
  });

  it("dict + dict → shallow merge, override wins, nested dicts replaced not merged", () => {
    expect(mergeKwargs({ a: 1, b: { x: 1 }, c: 3 }, { b: { y: 2 }, d: 4 })).toEqual({ a: 1, b: { y: 2 }, c: 3, d: 4 });
  });

  it("list + dict → the dict applied to each dict/list element; other elements kept", () => {
    expect(mergeKwargs([{ a: 1 }, { a: 2, b: 1 }], { b: 9 })).toEqual([
      { a: 1, b: 9 },
      { a: 2, b: 9 },
    ]);
    expect(mergeKwargs([{ a: 1 }, 5, "s"], { b: 1 })).toEqual([{ a: 1, b: 1 }, 5, "s"]);
    expect(mergeKwargs([[{ a: 1 }]], { b: 2 })).toEqual([[{ a: 1, b: 2 }]]);
  });

  it("empty list + dict → [dict]", () => {
    expect(mergeKwargs([], { lr: 1 })).toEqual([{ lr: 1 }]);
  });

  it("dict + list → [merge(base, item) for item]; empty list → base", () => {
    expect(mergeKwargs({ a: 1, b: 1 }, [{ b: 2 }, { a: 3 }])).toEqual([
      { a: 1, b: 2 },
      { a: 3, b: 1 },
    ]);
    expect(mergeKwargs({ a: 1 }, [])).toEqual({ a: 1 });
  });

  it("list + list → element-wise merge up to the longer length", () => {
    expect(mergeKwargs([{ a: 1 }, { a: 2 }], [{ b: 1 }])).toEqual([{ a: 1, b: 1 }, { a: 2 }]);
    expect(mergeKwargs([{ a: 1 }], [{ b: 1 }, { c: 1 }])).toEqual([{ a: 1, b: 1 }, { c: 1 }]);
    expect(mergeKwargs([], [])).toEqual([]);
  });

  it("anything else → override", () => {
    expect(mergeKwargs(5, "x")).toBe("x");
    expect(mergeKwargs({ a: 1 }, 3)).toBe(3);
    expect(mergeKwargs("s", { a: 1 })).toEqual({ a: 1 });
    expect(mergeKwargs(true, false)).toBe(false);
  });

  it("never mutates or aliases its inputs", () => {
    const base = { a: { deep: [1] } };
    const override = [{ b: { deep: [2] } }];
    const out = mergeKwargs(base, override) as Array<{ a: { deep: number[] }; b: { deep: number[] } }>;
    out[0]!.a.deep.push(99);
    out[0]!.b.deep.push(99);
    expect(base).toEqual({ a: { deep: [1] } });
    expect(override).toEqual([{ b: { deep: [2] } }]);
  });
});
