import { describe, expect, it } from "vitest";
import { PyFloat } from "../../../src/codec/python-json.js";
import { parseConfigText } from "../../../src/config/config-file.js";
import { resolveRunConfig } from "../../../src/config/run-config.js";
import { expandMatrix } from "../../../src/config/matrix.js";
import { DEFAULT_VARIANT_LABEL, variantLabel, variantLabelOf, variantSuffix } from "../../../src/config/variant-label.js";

describe("variant labels", () => {
  it("are the kwargs as configured, sorted by key: key=value joined by commas", () => {
    expect(variantLabelOf({ ps_steps: 2 })).toBe("ps_steps=2");
    expect(variantLabelOf({ ps_steps: 2, ps_batches: 1 })).toBe("ps_batches=1,ps_steps=2");
    expect(variantLabelOf({ ps_batches: 1, ps_steps: 2 })).toBe(variantLabelOf({ ps_steps: 2, ps_batches: 1 }));
  });

  it("a trainer without params is `default`, which no other variant can be", () => {
    expect(variantLabelOf({})).toBe(DEFAULT_VARIANT_LABEL);
    expect(variantLabelOf({ default: "default" })).not.toBe(DEFAULT_VARIANT_LABEL);
    expect(variantSuffix({})).toBe("");
    expect(variantSuffix({ ps_steps: 2 })).toBe(" [ps_steps=2]");
  });

  it("tells values of different kinds apart: a string that reads as a number, boolean or null is quoted", () => {
    const labels = [{ k: 2 }, { k: "2" }, { k: true }, { k: "true" }, { k: null }, { k: "null" }, { k: "a b" }, { k: [1, 2] }, { k: { x: 1 } }].map(variantLabelOf);
    expect(labels).toEqual(["k=2", 'k="2"', "k=true", 'k="true"', "k=null", 'k="null"', 'k="a b"', "k=[1,2]", 'k={"x":1}']);
    expect(new Set(labels).size).toBe(labels.length);
    expect(variantLabelOf({ optimizer: "OptoPrimeV2", lr: 0.5, tiny: 1e-5 })).toBe("lr=0.5,optimizer=OptoPrimeV2,tiny=1e-05");
  });

  it("a float written 1.0 in YAML labels as the log's JSON keeps it (1), so validate and the reports agree", () => {
    expect(variantLabelOf({ lr: new PyFloat(1) })).toBe(variantLabelOf({ lr: 1 }));
  });

  it("a long label keeps its first 80 characters and a hash of the whole, so two long labels stay apart", () => {
    expect(variantLabelOf({ gepa_iters: 1, gepa_merge_every: 2, gepa_pareto_subset: 2, gepa_train_bs: 2 })).toBe("gepa_iters=1,gepa_merge_every=2,gepa_pareto_subset=2,gepa_train_bs=2");
    const a = variantLabelOf({ alpha: "x".repeat(80), beta: 1, gamma: 2, delta: 3 });
    const b = variantLabelOf({ alpha: "x".repeat(80), beta: 1, gamma: 2, delta: 4 });
    expect(a.length).toBe(80 + 1 + 8);
    expect(a.slice(0, 80)).toBe(b.slice(0, 80));
    expect(a).not.toBe(b);
    expect(variantLabelOf({ alpha: "x".repeat(80), beta: 1, gamma: 2, delta: 3 })).toBe(a);
  });

  it("each variant of a sweep gets its own label, the same for every seed", () => {
    const config = resolveRunConfig(parseConfigText("cfg.yaml", "seeds: [1, 2]\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 2}, {ps_steps: 4}]\n  - NoOpTrainer\n")).config;
    const jobs = expandMatrix(config);
    expect(jobs.map((j) => `${j.trainer_id} ${variantLabel(j.raw_params)} ${j.seed}`)).toEqual([
      "PrioritySearch ps_steps=2 1",
      "PrioritySearch ps_steps=2 2",
      "PrioritySearch ps_steps=4 1",
      "PrioritySearch ps_steps=4 2",
      "NoOpTrainer default 1",
      "NoOpTrainer default 2",
    ]);
  });
});
