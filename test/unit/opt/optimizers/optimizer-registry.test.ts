/** Optimizers by the names configs use. */
import { describe, expect, it } from "vitest";
import { createOptimizer, OPTIMIZER_NAMES, UNAVAILABLE_OPTIMIZERS, UnknownOptimizerError } from "../../../../src/opt/optimizers/optimizer-registry.js";
import { DIALECTS, PromptOptimizer } from "../../../../src/opt/optimizers/prompt-optimizer.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { problemOf, signal, variable } from "./fixtures.js";

describe("createOptimizer", () => {
  it.each(["OptoPrime", "OptoPrimeV2", "OPRO", "OPROv2"])("%s builds a prompt optimizer of that name", (name) => {
    const optimizer = createOptimizer(name, {}, scriptedLlm([]));
    expect(optimizer).toBeInstanceOf(PromptOptimizer);
    expect(optimizer.name).toBe(name);
    expect(optimizer.fork().name).toBe(name);
  });

  it("lists the four dialects and the names OpenTrace has", () => {
    expect(Object.keys(DIALECTS).sort()).toEqual(["OPRO", "OPROv2", "OptoPrime", "OptoPrimeV2"]);
    for (const name of [...Object.keys(DIALECTS), "TextGrad", "OptoPrimeMulti"]) expect(OPTIMIZER_NAMES).toContain(name);
  });

  it("OptoPrimeMulti builds; OptoPrimeV1 is OptoPrime under its other name", () => {
    expect(UNAVAILABLE_OPTIMIZERS).not.toHaveProperty("OptoPrimeMulti");
    expect(createOptimizer("OptoPrimeMulti", {}, scriptedLlm([])).name).toBe("OptoPrimeMulti");
    expect(createOptimizer("OptoPrimeMulti", {}, scriptedLlm([])).fork().name).toBe("OptoPrimeMulti");
    const v1 = createOptimizer("OptoPrimeV1", {}, scriptedLlm([]));
    expect(v1).toBeInstanceOf(PromptOptimizer);
    expect(v1.name).toBe("OptoPrimeV1");
    expect((v1 as PromptOptimizer).messages(problemOf([variable("a", "number", 1)]))).toEqual((createOptimizer("OptoPrime", {}, scriptedLlm([])) as PromptOptimizer).messages(problemOf([variable("a", "number", 1)])));
  });

  it("every listed name either builds an optimizer of that name or says it is not available", () => {
    for (const name of OPTIMIZER_NAMES) {
      if (name in UNAVAILABLE_OPTIMIZERS) expect(() => createOptimizer(name, {}, scriptedLlm([]))).toThrow(`optimizer '${name}' is not available: ${UNAVAILABLE_OPTIMIZERS[name]}`);
      else expect(createOptimizer(name, {}, scriptedLlm([])).name).toBe(name);
    }
  });

  it("an unknown name lists the known ones", () => {
    const error = (() => {
      try {
        createOptimizer("OptoPrimeV3", {}, scriptedLlm([]));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UnknownOptimizerError);
    expect((error as Error).name).toBe("UnknownOptimizerError");
    expect((error as Error).message).toBe(`unknown optimizer 'OptoPrimeV3'; known: ${OPTIMIZER_NAMES.join(", ")}`);
    expect((error as Error).message).toContain("OptoPrime, ");
  });

  it("takes the first mapping of a list of kwargs (one optimizer per parameter group)", async () => {
    const llm = scriptedLlm([xmlReply({})]);
    const optimizer = createOptimizer("OptoPrimeV2", [{ objective: "First group.", max_tokens: 100 }, { objective: "Second group." }], llm);
    await optimizer.propose(problemOf([variable("a", "number", 1.5)]), signal);
    expect(llm.requests[0]!.maxTokens).toBe(100);
    expect(llm.requests[0]!.messages[1]!.content).toContain("# Instruction\nFirst group.\n");
  });

  it("ignores kwargs of the wrong type", () => {
    const optimizer = createOptimizer("OptoPrimeV2", { objective: 5, memory_size: "3", max_tokens: null }, scriptedLlm([])) as PromptOptimizer;
    expect(optimizer.objective).toBe(DIALECTS.OptoPrimeV2!.defaultObjective);
  });
});
