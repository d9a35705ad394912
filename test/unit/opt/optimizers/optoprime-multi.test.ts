/**
 * OptoPrimeMulti against a scripted LLM: the calls each generation technique makes (prompts,
 * temperatures, order), what each selection technique picks, and how the chosen reply becomes a
 * proposal. Cases are worked from OpenTrace's optoprimemulti.py; each says which rule it pins.
 */
import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../../../../src/llm/llm.js";
import { LlmError } from "../../../../src/llm/llm-error.js";
import { createOptimizer, OPTIMIZER_NAMES, optimizerKwargsProblems } from "../../../../src/opt/optimizers/optimizer-registry.js";
import { OptoPrimeMulti } from "../../../../src/opt/optimizers/optoprime-multi.js";
import { expertsFromReply, temperatureSteps } from "../../../../src/opt/optimizers/optoprime-multi-generation.js";
import { completeLinkageClusters, majorityIndex } from "../../../../src/opt/optimizers/optoprime-multi-selection.js";
import { JSON_OUTPUT_FORMAT } from "../../../../src/opt/optimizers/prompts.js";
import { jsonReply, scriptedLlm, type ScriptStep } from "../../../support/scripted-llm.js";
import { problemOf, signal, variable } from "./fixtures.js";

const problem = () => problemOf([variable("x", "number", 1), variable("label", "text", "old")]);
const system = (r: ChatRequest) => r.messages[0]!.content;
const user = (r: ChatRequest) => r.messages[1]!.content;

async function step(kwargs: Record<string, unknown>, script: readonly ScriptStep[]) {
  const llm = scriptedLlm(script);
  const optimizer = createOptimizer("OptoPrimeMulti", kwargs, llm) as OptoPrimeMulti;
  const base = optimizer.messages(problem());
  const proposal = await optimizer.propose(problem(), signal);
  return { llm, proposal, baseSystem: base[0]!.content, baseUser: base[1]!.content };
}

describe("OptoPrimeMulti generation", () => {
  it("temperature_variation (the default): num_responses calls of OptoPrime's prompt, temperatures from max down to min, JSON replies asked", async () => {
    const { llm, baseSystem, baseUser } = await step({ num_responses: 3, selection_technique: "last_of_n" }, [jsonReply({ x: 2 }), jsonReply({ x: 3 }), jsonReply({ x: 4 })]);
    expect(llm.requests.map((r) => r.temperature)).toEqual([1, 0.5, 0]);
    for (const r of llm.requests) {
      expect(system(r)).toBe(baseSystem);
      expect(user(r)).toBe(baseUser);
      expect(r.responseFormat).toBe("json_object");
      expect(r.maxTokens).toBe(4096);
    }
    // The original computes max − i·(max − min)/max(1, n − 1); these are its floats (Python 3).
    expect(temperatureSteps(5, 0.2, 1.0)).toEqual([1, 0.8, 0.6, 0.3999999999999999, 0.19999999999999996]);
    expect(temperatureSteps(1, 0, 1)).toEqual([1]);
  });

  it("temperature_min_max and max_tokens reach the generation calls", async () => {
    const { llm } = await step({ num_responses: 2, temperature_min_max: [0.2, 0.6], max_tokens: 123, selection_technique: "last_of_n" }, [jsonReply({ x: 2 }), jsonReply({ x: 3 })]);
    expect(llm.requests.map((r) => [r.temperature, r.maxTokens])).toEqual([
      [0.6, 123],
      [0.2, 123],
    ]);
  });

  it("self_refinement: one call after another at the minimum temperature, each shown the previous reply between <<< >>>", async () => {
    const { llm, baseSystem } = await step({ num_responses: 3, generation_technique: "self_refinement", selection_technique: "last_of_n" }, ["first", "second", jsonReply({ x: 9 })]);
    expect(llm.requests.map((r) => r.temperature)).toEqual([0, 0, 0]);
    expect(system(llm.requests[0]!)).toBe(baseSystem);
    expect(system(llm.requests[1]!)).toMatch(new RegExp(`PREVIOUS SOLUTION:<<<\\nfirst\\n>>>$`));
    expect(system(llm.requests[1]!).startsWith(`${baseSystem}\n`)).toBe(true);
    expect(system(llm.requests[2]!)).toMatch(/PREVIOUS SOLUTION:<<<\nsecond\n>>>$/);
  });

  it("iterative_alternatives: each later call is shown every earlier candidate, numbered", async () => {
    const { llm, baseSystem } = await step({ num_responses: 3, generation_technique: "iterative_alternatives", selection_technique: "last_of_n" }, ["A", "B", jsonReply({ x: 9 })]);
    expect(system(llm.requests[0]!)).toBe(baseSystem);
    expect(system(llm.requests[1]!)).toContain("CANDIDATE 1: <<<\nA\n>>>\n");
    expect(system(llm.requests[1]!)).not.toContain("CANDIDATE 2");
    expect(system(llm.requests[2]!)).toContain("CANDIDATE 1: <<<\nA\n>>>\nCANDIDATE 2: <<<\nB\n>>>\n");
  });

  it("multi_experts with experts_list: one call per expert (cycled to num_responses) at temperature 0, the problem under PROBLEM:, fences stripped from replies", async () => {
    const { llm, baseUser, proposal } = await step({ num_responses: 3, generation_technique: "multi_experts", experts_list: ["Statistician", "Poet"], selection_technique: "last_of_n" }, [
      "a",
      "b",
      `  <<<${jsonReply({ x: 5 })}>>> `,
    ]);
    expect(llm.requests.map((r) => /^You are a `([^`]*)`/.exec(system(r))?.[1])).toEqual(["Statistician", "Poet", "Statistician"]);
    for (const r of llm.requests) {
      expect(user(r)).toBe(`PROBLEM:\n\n${baseUser}`);
      expect(system(r).endsWith(JSON_OUTPUT_FORMAT)).toBe(true);
      expect(r.temperature).toBe(0);
    }
    expect(proposal.update).toEqual({ x: 5 });
  });

  it("multi_experts without a list: one call names the experts (a JSON array, or an object holding one), topped up from the defaults", async () => {
    const { llm } = await step({ num_responses: 2, generation_technique: "multi_experts", selection_technique: "last_of_n" }, [JSON.stringify({ experts: ["Chemist"] }), "a", jsonReply({ x: 5 })]);
    expect(user(llm.requests[0]!)).toContain("NUMBER OF EXPERTS TO LIST: 2\n");
    expect(llm.requests[0]!.maxTokens).toBe(4096);
    expect(llm.requests.slice(1).map((r) => /^You are a `([^`]*)`/.exec(system(r))?.[1])).toEqual(["Chemist", "Performance Optimizer"]);
    // The original pads with its default list indexed by how many experts it already has.
    expect(expertsFromReply("not json", 3)).toEqual(["Algorithm Expert", "Performance Optimizer", "Out of the box problem solver"]);
    expect(expertsFromReply(null, 1)).toEqual(["Algorithm Expert"]);
    expect(expertsFromReply('["A", "B", "C"]', 2)).toEqual(["A", "B"]);
    expect(expertsFromReply('{"a": ["X"], "b": 1}', 2)).toEqual(["Algorithm Expert", "Performance Optimizer"]);
  });

  it("a technique whose calls all fail falls back to temperature variation; a failed call loses its candidate, with a note", async () => {
    const fail = () => {
      throw new LlmError("server", "HTTP 500 after 5 retries", 500);
    };
    const { llm, proposal } = await step({ num_responses: 2, generation_technique: "self_refinement", selection_technique: "last_of_n" }, [fail, fail, fail, jsonReply({ x: 7 })]);
    expect(llm.requests.map((r) => r.temperature)).toEqual([0, 0, 1, 0]);
    expect(proposal.update).toEqual({ x: 7 });
    expect(proposal.notes).toContain("self_refinement gave no candidate; fell back to temperature_variation");
    expect(proposal.notes.filter((n) => n.startsWith("a call failed"))).toHaveLength(3);
  });

  it("an aborted call is not swallowed: the step fails", async () => {
    const llm = scriptedLlm([
      () => {
        throw new LlmError("aborted", "the job was stopped");
      },
      jsonReply({ x: 1 }),
    ]);
    await expect(createOptimizer("OptoPrimeMulti", { num_responses: 2 }, llm).propose(problem(), signal)).rejects.toThrow("the job was stopped");
  });
});

describe("OptoPrimeMulti selection", () => {
  const three = [jsonReply({ x: 2 }, "one"), jsonReply({ x: 3 }, "two"), jsonReply({ x: 4 }, "three")];

  it("best_of_n (the default): one more call at temperature 0 lists the problem and every candidate; its reply is the step's", async () => {
    const { llm, proposal, baseUser } = await step({ num_responses: 3 }, [...three, jsonReply({ x: 3, label: "new" }, "two is best")]);
    expect(llm.requests).toHaveLength(4);
    const select = llm.requests[3]!;
    expect(select.temperature).toBe(0);
    expect(select.responseFormat).toBe("json_object");
    expect(system(select)).toContain("most promising");
    expect(system(select).endsWith(JSON_OUTPUT_FORMAT)).toBe(true);
    expect(user(select)).toBe(`Problem:\n${baseUser}\n\nCandidate 1:\n${three[0]}\n\nCandidate 2:\n${three[1]}\n\nCandidate 3:\n${three[2]}\n\n`);
    expect(proposal.update).toEqual({ x: 3, label: "new" });
    expect(proposal.reasoning).toBe("two is best");
  });

  it("moa / mixture_of_agents: the candidates as numbered Responses, the reply combines them", async () => {
    for (const name of ["moa", "Mixture_Of_Agents"]) {
      const { llm, proposal } = await step({ num_responses: 3, selection_technique: name }, [...three, jsonReply({ x: 9 })]);
      expect(user(llm.requests[3]!)).toContain(`Response 3:\n${three[2]}\n\n`);
      expect(system(llm.requests[3]!)).toContain("combin");
      expect(proposal.update).toEqual({ x: 9 });
    }
  });

  it("a selection call that fails or answers nothing selects the last candidate", async () => {
    const { proposal } = await step({ num_responses: 3 }, [...three, ""]);
    expect(proposal.update).toEqual({ x: 4 });
  });

  it("last_of_n (and lastofn): no call, the last candidate", async () => {
    for (const name of ["last_of_n", "LastOfN"]) {
      const { llm, proposal } = await step({ num_responses: 3, selection_technique: name }, three);
      expect(llm.requests).toHaveLength(3);
      expect(proposal.update).toEqual({ x: 4 });
    }
  });

  it("majority: no call; the medoid of the largest cluster of alike replies", async () => {
    const near = (x: number) => jsonReply({ x, label: "a long shared label that makes these replies alike" }, "the same reasoning every time");
    const far = jsonReply({ x: 100 }, "something else entirely, nothing like the others at all");
    const { llm, proposal } = await step({ num_responses: 4, selection_technique: "majority" }, [far, near(2), near(3), near(2)]);
    expect(llm.requests).toHaveLength(4);
    // Candidates 2 and 4 are identical, so the medoid of {2, 3, 4} is candidate 2 (the first of least total distance).
    expect(proposal.update).toEqual({ x: 2, label: "a long shared label that makes these replies alike" });
    expect(majorityIndex([far, near(2), near(3), near(2)])).toBe(1);
  });

  it("majority: all in one cluster selects the last; equal clusters go to the one met first", () => {
    expect(majorityIndex(["same text", "same text", "same text!"])).toBe(2);
    // Two clusters of two: {0, 2} and {1, 3}; the cluster holding candidate 0 is met first.
    expect(majorityIndex(["aaaaaaaaaa", "zzzzzzzzzz", "aaaaaaaaab", "zzzzzzzzzy"])).toBe(0);
    expect(completeLinkageClusters(4, (i, j) => Math.abs(i - j) * 0.15, 0.2)).toEqual([[0, 1], [2, 3]]);
    // Complete linkage: a chain of close neighbours is not one cluster when its ends are far apart.
    expect(completeLinkageClusters(3, (i, j) => Math.abs(i - j) * 0.19, 0.2)).toEqual([[0, 1], [2]]);
  });

  it("a selected reply holding TERMINATE proposes nothing (read as OptoPrime reads a reply)", async () => {
    const { proposal } = await step({ num_responses: 2 }, [jsonReply({ x: 2 }), jsonReply({ x: 3 }), jsonReply({ x: 3 }, "no change: TERMINATE")]);
    expect(proposal.terminated).toBe(true);
    expect(proposal.update).toEqual({});
  });

  it("a single candidate is taken without a selection call", async () => {
    const { llm, proposal } = await step({ num_responses: 1 }, [jsonReply({ x: 6 })]);
    expect(llm.requests).toHaveLength(1);
    expect(proposal.update).toEqual({ x: 6 });
  });

  it("a candidate that is exactly TERMINATE ends the step unchanged, before any selection", async () => {
    const { llm, proposal } = await step({ num_responses: 3 }, [jsonReply({ x: 2 }), "TERMINATE", jsonReply({ x: 4 })]);
    expect(llm.requests).toHaveLength(3);
    expect(proposal.terminated).toBe(true);
    expect(proposal.update).toEqual({});
  });
});

describe("OptoPrimeMulti as an optimizer", () => {
  it("keeps OptoPrime's memory: a later step's prompt shows the earlier steps (memory_size), forks carry it", async () => {
    const llm = scriptedLlm(Array.from({ length: 4 }, () => jsonReply({ x: 2 })));
    const optimizer = createOptimizer("OptoPrimeMulti", { num_responses: 2, selection_technique: "last_of_n", memory_size: 2 }, llm);
    await optimizer.propose(problem(), signal);
    await optimizer.fork().propose(problemOf([variable("x", "number", 5), variable("label", "text", "old")]), signal);
    expect(user(llm.requests[0]!)).not.toContain("in the past");
    expect(user(llm.requests[2]!)).toContain("in the past");
  });

  it("is a known optimizer name; OptoPrimeV1 is OptoPrime under OpenTrace's other name", async () => {
    expect(OPTIMIZER_NAMES).toContain("OptoPrimeMulti");
    expect(OPTIMIZER_NAMES).toContain("OptoPrimeV1");
    const v1 = scriptedLlm([jsonReply({ x: 3 })]);
    const plain = scriptedLlm([jsonReply({ x: 3 })]);
    const v1Proposal = await createOptimizer("OptoPrimeV1", { memory_size: 1 }, v1).propose(problem(), signal);
    await createOptimizer("OptoPrime", { memory_size: 1 }, plain).propose(problem(), signal);
    expect(v1.requests).toEqual(plain.requests);
    expect(v1Proposal.update).toEqual({ x: 3 });
    expect(createOptimizer("OptoPrimeV1", {}, v1).name).toBe("OptoPrimeV1");
  });
});

describe("OptoPrimeMulti kwargs at validate time", () => {
  const keys = (kwargs: Record<string, unknown>) => optimizerKwargsProblems("OptoPrimeMulti", kwargs).map((p) => p.key);

  it("takes the original's techniques, case-insensitively", () => {
    for (const g of ["temperature_variation", "self_refinement", "Iterative_Alternatives", "multi_experts"]) expect(keys({ generation_technique: g })).toEqual([]);
    for (const s of ["best_of_n", "bestofn", "moa", "mixture_of_agents", "majority", "last_of_n", "lastofn"]) expect(keys({ selection_technique: s })).toEqual([]);
    expect(keys({ num_responses: 5, temperature_min_max: [0, 0.7], experts_list: ["A"], objective: "o", memory_size: 3, max_tokens: 10 })).toEqual([]);
  });

  it("refuses what needs what trace-bench has not (LLM profiles, a Python selector) and unknown names, each in one line", () => {
    const problems = optimizerKwargsProblems("OptoPrimeMulti", { generation_technique: "multi_llm", llm_profiles: ["cheap"], selector: "my_fn", selection_technique: "best_of_m", num_responses: 0 });
    expect(problems.map((p) => p.key).sort()).toEqual(["generation_technique", "llm_profiles", "num_responses", "selection_technique", "selector"]);
    for (const p of problems) expect(p.text).not.toContain("\n");
    expect(problems.find((p) => p.key === "generation_technique")!.text).toContain("multi_llm generation needs OpenTrace LLMFactory profiles");
    expect(problems.find((p) => p.key === "selection_technique")!.text).toContain("did you mean 'best_of_n'?");
    expect(keys({ generation_technique: "temprature_variation" })).toEqual(["generation_technique"]);
    expect(keys({ temperature_min_max: [1] })).toEqual(["temperature_min_max"]);
    expect(keys({ experts_list: [] })).toEqual(["experts_list"]);
    // Other optimizers' kwargs are not checked here.
    expect(optimizerKwargsProblems("OptoPrime", { selector: "x" })).toEqual([]);
  });
});
