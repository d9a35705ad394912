/**
 * Parity scenario default-optimizer: what the harness runs when no optimizer is named. Every
 * built-in internal task is a Trace model and gets OptoPrimeV2; only a task that is a bare
 * parameter gets OPROv2, whose prompt has the reduced Problem Context / Solution / Feedback
 * template. Both runs: PrioritySearch, ps_steps 1, ps_batches 1, replies 1.0, 2.5, 4.0, 3.25.
 */
import { afterAll, describe, expect, it } from "vitest";
import { builtinTaskRegistry } from "../../../../adapters/tasks/index.js";
import { toPlain } from "../../../../src/config/kwargs.js";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import { defaultOptimizerFor } from "../../../../src/opt/default-optimizer.js";
import { readPrioritySearchOptions, runPrioritySearch } from "../../../../src/opt/trainers/priority-search.js";
import { valueAgent } from "../../../support/parity.js";
import { floatReply, promptFacts, recordedFacts } from "../../../support/prompt-facts.js";
import { scriptedLlm } from "../../../support/scripted-llm.js";
import { harnessContext } from "../../../support/trainer-harness.js";
import { fixture } from "./support.js";

const recorded = fixture<{ builtin_tasks: Record<string, { resolved_optimizer: string }>; runs: Record<string, any> }>("default-optimizer");
const registry = builtinTaskRegistry();
afterAll(() => registry.close());

const KWARGS = { num_epochs: 1, num_steps: 1, num_batches: 1, num_candidates: 2, num_proposals: 2, num_threads: 1 };

async function run(bundle: TaskBundle, calls: readonly Record<string, any>[]) {
  const llm = scriptedLlm(calls.map((c) => floatReply(c.reply.assign["float:0"])));
  const optimizer = defaultOptimizerFor(bundle);
  const { context } = harnessContext(bundle, llm, { kwargs: KWARGS, optimizer });
  const result = await runPrioritySearch(context, readPrioritySearchOptions(toPlain(KWARGS), "PrioritySearch"));
  expect(llm.remaining()).toBe(0);
  return { optimizer, requests: llm.requests, values: result.values };
}

describe("parity default-optimizer", () => {
  it.each(Object.entries(recorded.builtin_tasks))("default-optimizer builtin_tasks: %s resolves %o", async (taskId, { resolved_optimizer }) => {
    expect(defaultOptimizerFor(await registry.load(taskId, {}))).toBe(resolved_optimizer);
  });

  it("default-optimizer model_task_numeric_param: OptoPrimeV2, its prompts show the traced graph", async () => {
    const recordedRun = recorded.runs.model_task_numeric_param;
    const got = await run(await registry.load("internal:numeric_param", {}), recordedRun.llm.calls);
    expect(got.optimizer).toBe(recordedRun.resolved_optimizer);
    got.requests.forEach((request, i) => expect(promptFacts(request)).toEqual(recordedFacts(recordedRun.llm.calls[i])));
  });

  it("default-optimizer bare_parameter_node: OPROv2 with Problem Context / Solution / Feedback, memory rounds [0, 0, 1, 1], final 3.25", async () => {
    const recordedRun = recorded.runs.bare_parameter_node;
    const bare = valueAgent({ inputs: [null], targets: [3.0] });
    const got = await run({ ...bare, optimizer_kwargs: {} }, recordedRun.llm.calls);
    expect(got.optimizer).toBe(recordedRun.resolved_optimizer);
    got.requests.forEach((request, i) => {
      const call = recordedRun.llm.calls[i];
      const facts = promptFacts(request);
      // A bare parameter has no graph name here: compare its type and value, not its name.
      expect({ ...facts, variables: facts.variables.map((v) => ({ ...v, name: "" })), closing_names: [] }).toEqual({
        ...recordedFacts(call),
        variables: call.variables.map((v: { type: string; value: string }) => ({ name: "", type: v.type, value: v.value })),
        closing_names: [],
        code_lines: [],
        documented_ops: [],
      });
      expect(request.messages[1]!.content).toContain('<solution name="value" type="float">');
      expect(request.maxTokens).toBe(call.max_tokens);
    });
    expect(got.values).toEqual(recordedRun.final);
  });
});
