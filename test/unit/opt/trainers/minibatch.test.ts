import { describe, expect, it } from "vitest";
import { createStubLlm } from "../../../../adapters/llm/stub-llm.js";
import { createTrainerContext } from "../../../../src/engine/trainer-context.js";
import { initialValues } from "../../../../src/domain/parameter.js";
import { improves, minibatchAlgorithmTrainer, minibatchTrainer } from "../../../../src/opt/trainers/minibatch.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { perStep, runTrainer, targetBundle } from "../../../support/trainer-harness.js";

describe("MinibatchAlgorithm (reference §3.1)", () => {
  it("rejects a worsening update and keeps an improving one; costs 1 LLM call and B (+B when checked) evaluations per batch", async () => {
    const llm = scriptedLlm([xmlReply({ x: -5 }), xmlReply({ x: 2 })]);
    const run = await runTrainer(minibatchAlgorithmTrainer, targetBundle(), llm, { kwargs: { batch_size: 2 } });
    expect(llm.remaining()).toBe(0);
    expect(run.iterations.map((it) => it.step)).toEqual([1, 2]);
    expect(perStep(run.iterations, "llm_calls")).toEqual([1, 1]);
    expect(perStep(run.iterations, "evaluations")).toEqual([4, 4]);
    expect(run.iterations[0]!.values).toEqual({ x: 0 });
    expect(run.iterations[0]!.score).toBe(-3);
    expect(run.iterations[0]!.notes).toEqual([expect.stringContaining("update rejected")]);
    expect(run.iterations[1]!.values).toEqual({ x: 2 });
    expect(run.iterations[1]!.score).toBe(-1);
    expect(run.iterations[1]!.best_score).toBe(-1);
    expect(run.iterations[1]!.notes).toBeUndefined();
    expect(run.values).toEqual({ x: 2 });
  });

  it("rejects an update that ties the minibatch score (parity: minibatch-ensure-improvement)", async () => {
    const llm = scriptedLlm([xmlReply({ x: 6 })]);
    const run = await runTrainer(minibatchAlgorithmTrainer, targetBundle(1), llm);
    expect(run.values).toEqual({ x: 0 });
    expect(run.iterations[0]!.score).toBe(-3);
    expect(run.iterations[0]!.notes).toEqual([expect.stringContaining("update rejected")]);
  });

  it("improvement_threshold tolerates a small worsening only; ties and unscored checks are rejected", () => {
    expect(improves(-3, -3.4, 0.5)).toBe(true);
    expect(improves(-3, -3.6, 0.5)).toBe(false);
    expect(improves(-3, -3.5, 0.5)).toBe(false);
    expect(improves(-3, -3, 0)).toBe(false);
    expect(improves(-3, -2.9, 0)).toBe(true);
    expect(improves(-3, null, 0)).toBe(false);
    expect(improves(-3, Number.NaN, 0)).toBe(false);
    expect(improves(null, -10, 0)).toBe(true);
  });

  it("without ensure_improvement applies the update unchecked (B evaluations per batch)", async () => {
    const llm = scriptedLlm([xmlReply({ x: -5 })]);
    const run = await runTrainer(minibatchAlgorithmTrainer, targetBundle(2), llm, { kwargs: { batch_size: 2, ensure_improvement: false } });
    expect(run.values).toEqual({ x: -5 });
    expect(perStep(run.iterations, "evaluations")).toEqual([2]);
    // The new values were not measured: the step reports the minibatch score that drove the update.
    expect(run.iterations[0]!.score).toBe(-3);
  });

  it("an unreadable reply leaves the parameters unchanged, is recorded, and costs no check", async () => {
    const llm = scriptedLlm(["I am not sure what to do."]);
    const run = await runTrainer(minibatchAlgorithmTrainer, targetBundle(2), llm, { kwargs: { batch_size: 2 } });
    expect(run.values).toEqual({ x: 0 });
    expect(perStep(run.iterations, "evaluations")).toEqual([2]);
    expect(run.iterations[0]!.notes).toEqual([expect.stringMatching(/^step 1: no update \(unreadable reply: .*\); proposal dropped$/)]);
  });

  it("runs num_epochs passes of the DataLoader (a batch crossing an epoch ends it; the next starts afresh)", async () => {
    // 4 examples, batches of 3: each epoch yields 3 + (1 + 2 borrowed from a new permutation); the
    // next epoch draws another permutation (parity: dataloader-epochs, N=4, B=3, E=2 → 4 steps).
    const llm = scriptedLlm(Array.from({ length: 4 }, () => "TERMINATE"));
    const run = await runTrainer(minibatchAlgorithmTrainer, targetBundle(4), llm, { kwargs: { batch_size: 3, num_epochs: 2 } });
    expect(llm.remaining()).toBe(0);
    expect(run.iterations).toHaveLength(4);
    expect(perStep(run.iterations, "evaluations")).toEqual([3, 3, 3, 3]);
    expect(run.iterations[0]!.notes).toEqual(["step 1: no update (the optimizer answered TERMINATE); proposal dropped"]);
  });

  it("Minibatch is the same algorithm under its own id", async () => {
    expect(minibatchTrainer.id).toBe("Minibatch");
    expect(minibatchAlgorithmTrainer.id).toBe("MinibatchAlgorithm");
    expect(minibatchTrainer.kwargs).toEqual(minibatchAlgorithmTrainer.kwargs);
    const run = await runTrainer(minibatchTrainer, targetBundle(1), scriptedLlm([xmlReply({ x: 2.5 })]));
    expect(run.values).toEqual({ x: 2.5 });
  });

  it("the same seed gives the same history", async () => {
    const once = () => runTrainer(minibatchAlgorithmTrainer, targetBundle(5), createStubLlm(7), { seed: 7, kwargs: { batch_size: 2, num_epochs: 3 } });
    const [a, b] = [await once(), await once()];
    expect(a.iterations.length).toBe(9); // 5 examples in pairs: 3 batches per epoch
    expect(b.iterations).toEqual(a.iterations);
    expect(b.values).toEqual(a.values);
  });

  it("rejects a kwarg of the wrong type with a line naming it", async () => {
    await expect(runTrainer(minibatchAlgorithmTrainer, targetBundle(1), scriptedLlm([]), { kwargs: { batch_size: "two" } })).rejects.toThrow(
      /MinibatchAlgorithm: kwarg 'batch_size' must be an integer ≥ 1 \(got "two"\)/,
    );
  });

  it("stops when the job is interrupted", async () => {
    const bundle = targetBundle(4);
    const controller = new AbortController();
    const context = createTrainerContext({
      bundle,
      initialValues: initialValues(bundle.parameters),
      trainerKwargs: { batch_size: 1 },
      seed: 1,
      optimizer: { name: "OptoPrimeV2", kwargs: {} },
      recorder: { attempt: 1, record: () => {} },
      llm: scriptedLlm([xmlReply({ x: 1 }), xmlReply({ x: 2 })]),
      signal: controller.signal,
      onValues: () => controller.abort(),
    });
    await expect(minibatchAlgorithmTrainer.train(context)).rejects.toThrow();
  });
});
