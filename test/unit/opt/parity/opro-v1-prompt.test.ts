/**
 * Parity scenario opro-v1-prompt: 7 steps (forward, backward, step, update applied) of OPRO and of
 * OptoPrime (v1) on numeric_param, objective "Match the numeric target value.", memory_size 5.
 * OPRO asks for OptoPrime's JSON keys without explaining a problem's parts, lists every past
 * example plus the current one (memory_size is not applied) and ends on the objective; OptoPrime
 * shows #Constraints and caps its memory at 5.
 */
import { afterAll, describe, expect, it } from "vitest";
import { builtinTaskRegistry } from "../../../../adapters/tasks/index.js";
import type { ParameterValues } from "../../../../src/domain/parameter.js";
import type { ChatRequest } from "../../../../src/llm/llm.js";
import { scriptedLlm } from "../../../support/scripted-llm.js";
import { harnessContext } from "../../../support/trainer-harness.js";
import { fixture } from "./support.js";

const recorded = fixture<{ runs: Record<string, any> }>("opro-v1-prompt");
const registry = builtinTaskRegistry();
afterAll(() => registry.close());

const content = (r: ChatRequest, role: string) => r.messages.find((m) => m.role === role)!.content;

/** A JSON reply naming the prompt's float variable (`(float) name=` in OptoPrime, a number-valued key in OPRO's examples). */
const jsonFloatReply = (value: number) => (request: ChatRequest) => {
  const user = content(request, "user");
  const name = /^\(float\) (\S+)=/m.exec(user)?.[1] ?? /"(\w+)": -?\d/.exec(user)![1]!;
  return JSON.stringify({ reasoning: "scripted", answer: "", suggestion: { [name]: value } });
};

/** The JSON keys the system prompt asks for, in order. */
const jsonKeys = (system: string) => [...new Set([...system.matchAll(/"(reasoning|answer|suggestion)":/g)].map((m) => m[1]!))];

async function sevenSteps(optimizer: string) {
  const run = recorded.runs[optimizer];
  const bundle = await registry.load("internal:numeric_param", {});
  const llm = scriptedLlm(run.steps.map((s: { update_returned: { value: number } }) => jsonFloatReply(s.update_returned.value)));
  const { context } = harnessContext(bundle, llm, { optimizer, optimizerKwargs: run.optimizer_kwargs });
  const opt = context.createOptimizer();
  let values: ParameterValues = context.initialValues;
  const updates: ParameterValues[] = [];
  for (let step = 0; step < run.steps.length; step++) {
    const rollouts = await context.rollout(values, [{ input: null, info: 3.0 }]);
    const proposal = await opt.propose(context.problem(values, rollouts), new AbortController().signal);
    updates.push(proposal.update);
    values = { ...values, ...proposal.update };
  }
  expect(llm.remaining()).toBe(0);
  expect(updates).toEqual(run.steps.map((s: { update_returned: unknown }) => s.update_returned));
  return { run, requests: llm.requests };
}

describe("parity opro-v1-prompt", () => {
  it("opro-v1-prompt OPRO: OptoPrime's JSON keys, no parts legend, 1…7 examples (memory_size not applied), the objective last", async () => {
    const { run, requests } = await sevenSteps("OPRO");
    const calls = run.llm.calls as Record<string, any>[];
    requests.forEach((request, i) => {
      const user = content(request, "user");
      const examples = [...user.matchAll(/^\{\n {4}"variables": \{\n([\s\S]*?)\n {4}\},/gm)];
      expect(examples).toHaveLength(calls[i]!.examples);
      const shownFloats = examples.map((e) => Number(/"float\d+": (-?[\d.]+)/.exec(e[1]!)![1]));
      expect(shownFloats).toEqual(calls[i]!.example_values.map((v: Record<string, unknown>) => Object.entries(v).find(([k]) => k.startsWith("float"))![1]));
      // Each example holds the code too.
      for (const e of examples) expect(e[1]).toMatch(/"__code\d+": "function emit/);
      expect(user.trimEnd().split("\n").at(-1) === run.optimizer_kwargs.objective).toBe(run.user_prompt_last_line_is_the_objective[i]);
      expect(jsonKeys(content(request, "system"))).toEqual(calls[i]!.system_json_keys);
      expect(content(request, "system").includes("A problem has these parts")).toBe(calls[i]!.system_has_parts_legend);
      expect(request.responseFormat).toBe(calls[i]!.response_format.type);
      expect(request.maxTokens).toBe(calls[i]!.max_tokens);
    });
    expect(new Set(requests.map((r) => content(r, "system"))).size).toBe(1);
  });

  it("opro-v1-prompt OptoPrime: sections with #Constraints, memory rounds capped at 5", async () => {
    const { run, requests } = await sevenSteps("OptoPrime");
    const calls = run.llm.calls as Record<string, any>[];
    requests.forEach((request, i) => {
      const user = content(request, "user");
      const problem = user.split("================================")[1]!;
      expect([...problem.matchAll(/^#(\w+)$/gm)].map((m) => m[1])).toEqual(calls[i]!.sections);
      const rounds = [...user.matchAll(/^\{\n {4}"variables": \{\n([\s\S]*?)\n {4}\},/gm)];
      expect(rounds).toHaveLength(calls[i]!.memory_rounds);
      expect(rounds.map((r) => Number(/"float\d+": (-?[\d.]+)/.exec(r[1]!)![1]))).toEqual(calls[i]!.memory_round_values.map((v: Record<string, unknown>) => Object.entries(v).find(([k]) => k.startsWith("float"))![1]));
      expect(jsonKeys(content(request, "system"))).toEqual(calls[i]!.system_json_keys);
      expect(content(request, "system").includes("A problem has these parts")).toBe(calls[i]!.system_has_parts_legend);
      expect(request.responseFormat).toBe(calls[i]!.response_format.type);
    });
  });
});
