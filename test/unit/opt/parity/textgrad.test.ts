/**
 * Parity scenario textgrad: TextGrad back-propagates over numeric_param's traced graph. One
 * gradient call per edge, output first (batchify → eval, then eval → the model object, → value,
 * → emit's code), no reduce (no node with several gradients), then one update per parameter in
 * the model's order (emit's code, then value), each carrying every gradient its parameter got.
 * Where the reference puts a response object's repr in the update's feedback slot, ours holds the
 * gradient text (docs/differences.md).
 */
import { afterAll, describe, expect, it } from "vitest";
import { builtinTaskRegistry } from "../../../../adapters/tasks/index.js";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import type { ChatRequest } from "../../../../src/llm/llm.js";
import { codeParameterName, defineTraceModel } from "../../../../src/opt/trace/model.js";
import { GRADIENT_SYSTEM_PROMPT, UPDATE_SYSTEM_PROMPT } from "../../../../src/opt/optimizers/textgrad-prompts.js";
import { minibatchAlgorithmTrainer } from "../../../../src/opt/trainers/minibatch.js";
import { prioritySearchTrainer } from "../../../../src/opt/trainers/priority-search.js";
import { graphName } from "../../../support/prompt-facts.js";
import { scriptedLlm } from "../../../support/scripted-llm.js";
import { harnessContext, runTrainer } from "../../../support/trainer-harness.js";
import { valueAgent } from "../../../support/parity.js";
import { fixture } from "./support.js";

const recorded = fixture<Record<string, any>>("textgrad");
const registry = builtinTaskRegistry();
afterAll(() => registry.close());

const OBJECTIVE = "Match the numeric target value.";
const system = (r: ChatRequest) => r.messages.find((m) => m.role === "system")!.content;
const user = (r: ChatRequest) => r.messages.find((m) => m.role === "user")!.content;
const kindOf = (r: ChatRequest) => (system(r) === GRADIENT_SYSTEM_PROMPT ? "gradient" : system(r) === UPDATE_SYSTEM_PROMPT ? "update" : "reduce");
const count = (text: string, tag: string) => (text.match(new RegExp(tag, "g")) ?? []).length;

/** A graph node named in a role (`<type> variable|node '<name>' (…)`), as the recording describes it. */
function described(role: string): { graph_name: string; kind: string } {
  const match = /^\S+ (variable|node) '([^']+)'(?: \((input|output of the operation \w+)\))?/.exec(role);
  if (!match) throw new Error(`unreadable role: ${role}`);
  const kind = match[1] === "variable" ? "parameter" : match[3] === "input" ? "node" : "message";
  return { graph_name: graphName(match[2]!), kind };
}

/** Gradients are free text; an update answers 3.0 for the float and the unchanged source for the code. */
function replies(code: string) {
  return (request: ChatRequest) => {
    if (kindOf(request) !== "update") return "free-text gradient";
    return `<IMPROVED_VARIABLE>${/<ROLE>code variable/.test(user(request)) ? code : "3.0"}</IMPROVED_VARIABLE>`;
  };
}

async function direct(bundle: TaskBundle, examples: number, script: (r: ChatRequest) => string) {
  const llm = scriptedLlm(Array(20).fill(script));
  const { context } = harnessContext(bundle, llm, { optimizer: "TextGrad", optimizerKwargs: { objective: OBJECTIVE } });
  const rollouts = await context.rollout(context.initialValues, Array.from({ length: examples }, () => ({ input: null, info: 3.0 })));
  const proposal = await context.createOptimizer().propose(context.problem(context.initialValues, rollouts), new AbortController().signal);
  return { requests: llm.requests, proposal };
}

describe("parity textgrad", () => {
  for (const [batch, run] of Object.entries(recorded.direct as Record<string, any>)) {
    it(`textgrad direct ${batch}: ${run.total_calls} calls (${JSON.stringify(run.calls_by_kind)}), one per edge then one update per parameter, no reduce`, async () => {
      const bundle = await registry.load("internal:numeric_param", {});
      const code = String(bundle.parameters.find((p) => p.kind === "code")!.value);
      const { requests, proposal } = await direct(bundle, run.batch_size, replies(code));
      expect(requests).toHaveLength(run.total_calls);
      requests.forEach((request, i) => {
        const call = run.calls[i];
        const prompt = user(request);
        expect(kindOf(request)).toBe(call.kind);
        expect(prompt.includes(OBJECTIVE)).toBe(call.objective_text_present);
        if (call.kind === "gradient") {
          const input = described(/<ROLE> ([\s\S]+?) <\/ROLE>/.exec(prompt)![1]!);
          const output = described(/used as (.+)$/m.exec(prompt)![1]!);
          expect([output, input]).toEqual([
            { graph_name: graphName(call.response_node.graph_name), kind: call.response_node.kind },
            { graph_name: graphName(call.variable_node.graph_name), kind: call.variable_node.kind },
          ]);
          expect([...new Set(prompt.match(/<([A-Z_]+)>/g))].map((t) => t.slice(1, -1)).sort()).toEqual(call.user_tags);
        } else {
          expect(described(/<ROLE>([\s\S]+?)<\/ROLE>/.exec(prompt)![1]!).graph_name).toBe(graphName(call.variable_node.graph_name));
          expect([count(prompt, "</FEEDBACK>"), count(prompt, "</CONVERSATION>")]).toEqual([call.feedback_blocks, call.conversation_blocks]);
          // Our feedback slot holds the gradient text (the reference's holds a response object's repr).
          expect(prompt).toContain("<FEEDBACK>free-text gradient</FEEDBACK>");
          expect([...new Set(prompt.match(/<([A-Z_]+)>/g))].map((t) => t.slice(1, -1)).sort()).toEqual(call.user_tags);
        }
      });
      expect(proposal.update).toEqual({ [codeParameterName("emit")]: code, value: run.update_returned.value });
    });
  }

  it("textgrad bare_update_reply: A1 (emit not trainable): 4 gradient calls and 1 update whose bare reply is skipped", async () => {
    const emit = { name: "emit", documentation: "Returns the value." };
    const model = defineTraceModel({
      name: "ValueAgentModel",
      parameters: [{ name: "value", kind: "number", value: 0, description: "The value." }],
      forward: (self, x) => self.op(emit, { self: self.self, value: self.param("value"), x }, ({ value }) => value),
    });
    const bundle: TaskBundle = { ...valueAgent({ inputs: [null], targets: [3] }), parameters: model.parameters, agent: model.agent };
    const run = recorded.bare_update_reply;
    const { requests, proposal } = await direct(bundle, 1, (r) => (kindOf(r) === "update" ? "3.0" : "free-text gradient"));
    expect(requests.map(kindOf)).toEqual([...Array(run.calls_by_kind.gradient).fill("gradient"), ...Array(run.calls_by_kind.update).fill("update")]);
    expect(proposal.update).toEqual(run.update_returned);
  });

  it("textgrad under_trainers PrioritySearch: the reference raises TypeError before any call; here each of the 4 proposals makes its 6 calls (deliberate difference)", async () => {
    const bundle = await registry.load("internal:numeric_param", {});
    const code = String(bundle.parameters.find((p) => p.kind === "code")!.value);
    const reference = recorded.under_trainers.PrioritySearch;
    expect([reference.error.type, reference.llm_calls]).toEqual(["TypeError", 0]);
    const llm = scriptedLlm(Array(24).fill(replies(code)));
    const result = await runTrainer(prioritySearchTrainer, bundle, llm, { optimizer: "TextGrad", kwargs: reference.train_kwargs });
    expect(llm.remaining()).toBe(0);
    expect(result.values).toEqual({ [codeParameterName("emit")]: code, value: 3.0 });
  });

  it("textgrad under_trainers MinibatchAlgorithm: 6 calls, final value 3.0 (PrioritySearch, which raises TypeError in the reference, runs here)", async () => {
    const bundle = await registry.load("internal:numeric_param", {});
    const code = String(bundle.parameters.find((p) => p.kind === "code")!.value);
    const expected = recorded.under_trainers.MinibatchAlgorithm;
    const llm = scriptedLlm(Array(expected.llm_calls).fill(replies(code)));
    const result = await runTrainer(minibatchAlgorithmTrainer, bundle, llm, { optimizer: "TextGrad", kwargs: expected.train_kwargs });
    expect(llm.requests.map(kindOf)).toEqual([...Array(4).fill("gradient"), ...Array(2).fill("update")]);
    expect(result.values).toEqual({ [codeParameterName("emit")]: code, value: expected.final.value });
  });
});
