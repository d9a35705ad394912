import { describe, expect, it } from "vitest";
import { closestName, didYouMean, editDistance } from "../../../src/config/suggest.js";
import { acceptedTrainerKwargs, findTrainer } from "../../../src/opt/trainer-catalog.js";

describe("did you mean", () => {
  it("counts edits, a swap of neighbours as one", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("ps_setps", "ps_steps")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
  });

  it("suggests the nearest name within a third of its length, ignoring case and -/_", () => {
    expect(closestName("params_variant", ["params", "params_variants", "optimizer"])).toBe("params_variants");
    expect(closestName("Run-Idd", ["run-id", "runs-dir"])).toBe("run-id");
    expect(closestName("max_worker", ["max_workers", "max_retries"])).toBe("max_workers");
    expect(closestName("xyz", ["params_variants"])).toBeUndefined();
    expect(closestName("id", ["ids"])).toBe("ids");
    expect(didYouMean("internal:numeric_parm", ["internal:numeric_param", "internal:code_param"])).toBe("; did you mean 'internal:numeric_param'?");
    expect(didYouMean("warp_speed", ["ps_steps"])).toBe("");
  });
});

describe("trainer kwargs are checked per trainer", () => {
  const accepted = async (id: string) => acceptedTrainerKwargs(findTrainer(id), id);

  it("PrioritySearch takes its own counts and the ps_* knobs, not the GEPA ones", async () => {
    const names = await accepted("PrioritySearch");
    for (const k of ["num_steps", "num_candidates", "ps_steps", "ps_mem_update", "batch_size", "verbose", "threads"]) expect(names, k).toContain(k);
    for (const k of ["gepa_iters", "num_iters", "merge_every"]) expect(names, k).not.toContain(k);
  });

  it("GEPA-Base and GEPA-UCB take gepa_iters (renamed to their own iteration kwarg), not ps_steps", async () => {
    for (const id of ["GEPA-Base", "GEPA-UCB"]) {
      const names = await accepted(id);
      expect(names).toContain("gepa_iters");
      expect(names).toContain("gepa_train_bs");
      expect(names).not.toContain("ps_steps");
      expect(names).not.toContain("num_steps");
    }
    expect(await accepted("GEPA-Base")).toContain("num_iters");
    expect(await accepted("GEPA-UCB")).toContain("num_search_iterations");
  });

  it("a legacy knob maps only for the trainer id that renames it", async () => {
    // SequentialUpdate reads num_steps but ps_steps is not renamed for it (it would be ignored).
    const names = await accepted("SequentialUpdate");
    expect(names).toContain("num_steps");
    expect(names).not.toContain("ps_steps");
    expect(await accepted("MinibatchAlgorithm")).toEqual(expect.arrayContaining(["num_epochs", "batch_size"]));
    expect(await accepted("NoOpTrainer")).toContain("num_steps");
  });
});
