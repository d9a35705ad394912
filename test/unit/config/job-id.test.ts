/**
 * job_id golden vectors: SHA-256 of Python-compatible canonical JSON, computed with CPython's
 * hashlib and `json.dumps(sort_keys=True)` and pasted in literally.
 */
import { describe, expect, it } from "vitest";
import { canonicalJson, PyFloat } from "../../../src/codec/python-json.js";
import { computeJobId, jobIdsOfCell, sha256Hex } from "../../../src/config/hashing.js";

describe("job_id golden vectors (computed with python3 hashlib + json.dumps(sort_keys=True))", () => {
  const resolved = (trainerKwargs: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    trainer_kwargs: trainerKwargs,
    optimizer: null,
    optimizer_kwargs: {},
    guide: null,
    guide_kwargs: {},
    logger: null,
    logger_kwargs: {},
    eval_kwargs: {},
    ...extra,
  });
  const psDefaults = { num_epochs: 1, num_steps: 1, num_batches: 1, num_candidates: 2, num_proposals: 2 };

  it("smoke payload serializes exactly as spec §3.3 and hashes to 806f391306ae", () => {
    const identity = { task_id: "internal:numeric_param", trainer_id: "PrioritySearch", resolved_kwargs: resolved(psDefaults), seed: 123 };
    const payload = canonicalJson(identity);
    expect(payload).toBe(
      String.raw`{"resolved_kwargs": {"eval_kwargs": {}, "guide": null, "guide_kwargs": {}, "logger": null, "logger_kwargs": {}, "optimizer": null, "optimizer_kwargs": {}, "trainer_kwargs": {"num_batches": 1, "num_candidates": 2, "num_epochs": 1, "num_proposals": 2, "num_steps": 1}}, "seed": 123, "task_id": "internal:numeric_param", "trainer_id": "PrioritySearch"}`,
    );
    expect(sha256Hex(payload).slice(0, 12)).toBe("806f391306ae");
    expect(computeJobId(identity)).toBe("806f391306ae");
  });

  it("floats: 1.0, 0.1, 1e-05, 1e+16", () => {
    const identity = {
      task_id: "internal:numeric_param",
      trainer_id: "PrioritySearch",
      resolved_kwargs: resolved({ ...psDefaults, temperature: new PyFloat(1), learning_rate: 0.1, eps: 1e-5, budget: new PyFloat(1e16) }),
      seed: 7,
    };
    expect(canonicalJson(identity)).toBe(
      String.raw`{"resolved_kwargs": {"eval_kwargs": {}, "guide": null, "guide_kwargs": {}, "logger": null, "logger_kwargs": {}, "optimizer": null, "optimizer_kwargs": {}, "trainer_kwargs": {"budget": 1e+16, "eps": 1e-05, "learning_rate": 0.1, "num_batches": 1, "num_candidates": 2, "num_epochs": 1, "num_proposals": 2, "num_steps": 1, "temperature": 1.0}}, "seed": 7, "task_id": "internal:numeric_param", "trainer_id": "PrioritySearch"}`,
    );
    expect(computeJobId(identity)).toBe("1b83c198284f");
  });

  it("a float-valued 1.0 written as a plain number hashes differently (int 1)", () => {
    const identity = {
      task_id: "internal:numeric_param",
      trainer_id: "PrioritySearch",
      resolved_kwargs: resolved({ ...psDefaults, temperature: 1, learning_rate: 0.1, eps: 1e-5, budget: new PyFloat(1e16) }),
      seed: 7,
    };
    expect(computeJobId(identity)).not.toBe("1b83c198284f");
  });

  it("unicode task id and eval kwargs", () => {
    const identity = {
      task_id: "hf:qa/\u65e5\u672c\u8a9e",
      trainer_id: "GEPA-Base",
      resolved_kwargs: resolved(
        { num_iters: 1, train_batch_size: 2, merge_every: 2, pareto_subset_size: 2 },
        { eval_kwargs: { prompt: "R\u00e9sum\u00e9 \u{1F600}", "\uff71": "\u2028", a: "tab\there" } },
      ),
      seed: 0,
    };
    expect(canonicalJson(identity)).toBe(
      String.raw`{"resolved_kwargs": {"eval_kwargs": {"a": "tab\there", "prompt": "R\u00e9sum\u00e9 \ud83d\ude00", "\uff71": "\u2028"}, "guide": null, "guide_kwargs": {}, "logger": null, "logger_kwargs": {}, "optimizer": null, "optimizer_kwargs": {}, "trainer_kwargs": {"merge_every": 2, "num_iters": 1, "pareto_subset_size": 2, "train_batch_size": 2}}, "seed": 0, "task_id": "hf:qa/\u65e5\u672c\u8a9e", "trainer_id": "GEPA-Base"}`,
    );
    expect(computeJobId(identity)).toBe("75c617f51640");
  });

  it("nested kwargs: list optimizer_kwargs, nested dicts, bools, nulls, negative seed", () => {
    const identity = {
      task_id: "llm4ad_task",
      trainer_id: "GEPA-UCB",
      resolved_kwargs: resolved(
        { num_search_iterations: 3, train_batch_size: 2, merge_every: 2, pareto_subset_size: 2, verbose: true },
        {
          optimizer: "OptoPrimeV2",
          optimizer_kwargs: [
            { lr: 0.5, memory_size: 0 },
            { lr: 0.25, extra: { z: [1, 2, { b: null, a: false }], y: "x" } },
          ],
          guide: "LLMJudge",
          guide_kwargs: { rubric: { weights: [0.5, 1.5], strict: true } },
          logger: "none",
          logger_kwargs: { logdir: null },
          eval_kwargs: { objective_mode: "pareto", k: [3, 1, 2] },
        },
      ),
      seed: -5,
    };
    expect(canonicalJson(identity)).toBe(
      String.raw`{"resolved_kwargs": {"eval_kwargs": {"k": [3, 1, 2], "objective_mode": "pareto"}, "guide": "LLMJudge", "guide_kwargs": {"rubric": {"strict": true, "weights": [0.5, 1.5]}}, "logger": "none", "logger_kwargs": {"logdir": null}, "optimizer": "OptoPrimeV2", "optimizer_kwargs": [{"lr": 0.5, "memory_size": 0}, {"extra": {"y": "x", "z": [1, 2, {"a": false, "b": null}]}, "lr": 0.25}], "trainer_kwargs": {"merge_every": 2, "num_search_iterations": 3, "pareto_subset_size": 2, "train_batch_size": 2, "verbose": true}}, "seed": -5, "task_id": "llm4ad_task", "trainer_id": "GEPA-UCB"}`,
    );
    expect(computeJobId(identity)).toBe("5837d80dc2e1");
  });

  it("a cell's ids, serialized once for its seeds, are computeJobId's (with and without a model, odd kwargs and seeds)", () => {
    const cells = [
      { task_id: "internal:numeric_param", trainer_id: "PrioritySearch", resolved_kwargs: resolved(psDefaults) },
      { task_id: "llm4ad:online_bin_packing", trainer_id: "GEPA-Base", resolved_kwargs: resolved({ ...psDefaults, temperature: new PyFloat(1) }, { eval_kwargs: { "ü": [1, 0.5, null], a: { z: "x", b: true } } }), llm_model: "gpt-4o-mini" },
      { task_id: "t", trainer_id: "NoOpTrainer", resolved_kwargs: resolved({}), llm_model: "" },
    ];
    for (const cell of cells) {
      const idOf = jobIdsOfCell(cell);
      for (const seed of [0, 1, 7, -3, 123456789, 2 ** 40]) expect(idOf(seed)).toBe(computeJobId({ ...cell, seed }));
    }
  });
});
