import { describe, expect, it } from "vitest";
import { createStubLlm } from "../../../../adapters/llm/stub-llm.js";
import { builtinTaskRegistry } from "../../../../adapters/tasks/index.js";
import { negativeAbsoluteError } from "../../../../adapters/tasks/guides.js";
import type { ChatRequest } from "../../../../src/llm/llm.js";
import { basicSearchTrainer } from "../../../../src/opt/trainers/basic-search.js";
import type { Dataset } from "../../../../src/domain/dataset.js";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { shownValues } from "../../../support/shown-values.js";
import { perStep, runTrainer } from "../../../support/trainer-harness.js";

/** One number `x` whose response scores −|x − target|: train target 3 (4 examples), optional validate set. */
function targetBundle(validate?: Dataset): TaskBundle {
  return {
    taskId: "test:target",
    parameters: [{ name: "x", kind: "number", value: 0, description: "A number.", trainable: true }],
    agent: { name: "EchoAgent", run: (_input, values) => values.x },
    guide: negativeAbsoluteError,
    train_dataset: { inputs: [0, 1, 2, 3], infos: [3, 3, 3, 3] },
    ...(validate ? { validate_dataset: validate } : {}),
    optimizer_kwargs: { objective: "Make x reach the target." },
    metadata: {},
  };
}

const validateAt = (target: number): Dataset => ({ inputs: ["a", "b"], infos: [target, target] });

const proposedFrom = (request: ChatRequest) => shownValues(request).x;

describe("BasicSearchAlgorithm (reference §3.2)", () => {
  it("moves to the argmax of the proposals and the current values on the validate set, at the cost-table price", async () => {
    const seen: unknown[] = [];
    const reply = (content: string) => (request: ChatRequest) => {
      seen.push(proposedFrom(request));
      return content;
    };
    const x = (value: number) => reply(xmlReply({ x: value }));
    const llm = scriptedLlm([x(1), x(2.5), x(2), x(5), reply("no variables here"), x(2)]);
    const run = await runTrainer(basicSearchTrainer, targetBundle(validateAt(2)), llm, { kwargs: { batch_size: 2, num_proposals: 3 } });
    expect(llm.remaining()).toBe(0);
    // Every proposal of a step is asked on the same values.
    expect(seen).toEqual([0, 0, 0, 2, 2, 2]);
    expect(perStep(run.iterations, "llm_calls")).toEqual([3, 3]);
    // Step 1: B forward + 3 proposals × N_val + N_val for the current values (first time) + B improvement check.
    // Step 2: B forward + 2 readable proposals × N_val; the chosen values equal the current ones, so no check.
    expect(perStep(run.iterations, "evaluations")).toEqual([2 + 3 * 2 + 2 + 2, 2 + 2 * 2]);
    // The validate set's target (2) decides, not the train set's (3).
    expect(run.iterations.map((it) => it.values)).toEqual([{ x: 2 }, { x: 2 }]);
    expect(run.iterations.map((it) => it.score)).toEqual([0, 0]);
    expect(run.iterations[1]!.notes).toEqual([expect.stringMatching(/^step 2, proposal 2: no update \(unreadable reply/)]);
    expect(run.values).toEqual({ x: 2 });
  });

  it("keeps the current values when every proposal validates worse (and then runs no check)", async () => {
    const llm = scriptedLlm([xmlReply({ x: -1 }), xmlReply({ x: 8 })]);
    const bundle = { ...targetBundle(), train_dataset: { inputs: [0], infos: [3] } };
    const run = await runTrainer(basicSearchTrainer, bundle, llm, { kwargs: { num_proposals: 2 } });
    expect(run.values).toEqual({ x: 0 });
    expect(run.iterations[0]!.score).toBe(-3);
    // B forward + 2 proposals × N_val + N_val for the current values; no check.
    expect(perStep(run.iterations, "evaluations")).toEqual([1 + 2 + 1]);
  });

  it("reverts the chosen proposal when the minibatch check rejects it, and keeps the proposal's validation score as the bar (parity: basicsearch-inflated-bar)", async () => {
    // Validation (target −2) prefers x = −2 (score 0); the train minibatch (target 3) scores it worse.
    const llm = scriptedLlm([xmlReply({ x: -2 }), xmlReply({ x: 1 })]);
    const bundle = { ...targetBundle(validateAt(-2)), train_dataset: { inputs: [0, 1], infos: [3, 3] } };
    const run = await runTrainer(basicSearchTrainer, bundle, llm, { kwargs: { num_proposals: 1 } });
    expect(run.iterations[0]!.values).toEqual({ x: 0 });
    expect(run.iterations[0]!.notes).toEqual([expect.stringContaining("update rejected")]);
    expect(run.iterations[0]!.score).toBe(0);
    // Step 2: x = 1 validates at −3, below the bar 0 the reverted x = −2 left: the current values stay.
    expect(run.iterations[1]!.values).toEqual({ x: 0 });
    expect(run.iterations[1]!.score).toBe(0);
    expect(perStep(run.iterations, "evaluations")).toEqual([1 + 2 + 2 + 1, 1 + 2]);
  });

  it("with ensure_improvement off, a validated choice is applied unchecked", async () => {
    const llm = scriptedLlm([xmlReply({ x: -2 })]);
    const bundle = { ...targetBundle(validateAt(-2)), train_dataset: { inputs: [0], infos: [3] } };
    const run = await runTrainer(basicSearchTrainer, bundle, llm, { kwargs: { num_proposals: 1, ensure_improvement: false } });
    expect(run.values).toEqual({ x: -2 });
    expect(run.iterations[0]!.score).toBe(0);
    expect(perStep(run.iterations, "evaluations")).toEqual([1 + 2 + 2]);
  });

  it("on ties prefers the earliest proposal, as Python's max does", async () => {
    // x = 2 and x = 4 both validate at −1 against target 3.
    const llm = scriptedLlm([xmlReply({ x: 4 }), xmlReply({ x: 2 })]);
    const bundle = { ...targetBundle(), train_dataset: { inputs: [0], infos: [3] } };
    const run = await runTrainer(basicSearchTrainer, bundle, llm, { kwargs: { num_proposals: 2 } });
    expect(run.values).toEqual({ x: 4 });
  });

  it("runs internal:numeric_param for 5 epochs with the stub LLM: 4 proposals (LLM calls) per step", async () => {
    const registry = builtinTaskRegistry();
    const bundle = await registry.load("internal:numeric_param", {});
    const run = await runTrainer(basicSearchTrainer, bundle, createStubLlm(1), { seed: 1, optimizer: "OPROv2", kwargs: { num_epochs: 5 } });
    expect(run.iterations).toHaveLength(5);
    expect(perStep(run.iterations, "llm_calls")).toEqual([4, 4, 4, 4, 4]);
    // No "final beats the initial −3.0": any random search passes that.
  });

  it("the same seed gives the same history", async () => {
    const registry = builtinTaskRegistry();
    const once = async () => runTrainer(basicSearchTrainer, await registry.load("internal:multi_param", {}), createStubLlm(3), { seed: 3, kwargs: { num_epochs: 3, num_proposals: 3, num_threads: 3 } });
    const [a, b] = [await once(), await once()];
    expect(b.iterations).toEqual(a.iterations);
    expect(b.values).toEqual(a.values);
  });
});
