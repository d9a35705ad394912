/** Shared helpers for the optimizer tests: small problems, built the way the trainer context builds them. */
import { expect } from "vitest";
import { builtinTaskRegistry } from "../../../../adapters/tasks/index.js";
import type { Kwargs } from "../../../../src/config/kwargs.js";
import type { Llm } from "../../../../src/llm/llm.js";
import type { JsonValue } from "../../../../src/domain/json-value.js";
import type { ParameterKind } from "../../../../src/domain/parameter.js";
import type { ProblemInstance, ProblemVariable } from "../../../../src/opt/problem.js";
import { examplesOf, type Example } from "../../../../src/opt/rollout.js";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import { harnessContext } from "../../../support/trainer-harness.js";

export const signal = new AbortController().signal;

export async function loadBundle(taskId = "internal:multi_param"): Promise<TaskBundle> {
  return builtinTaskRegistry().load(taskId, {});
}

/**
 * The real trainer context for a bundle (optimizer from `name`, kwargs merged over the bundle's),
 * and the problem its initial values produce on `examples` (default: the train set).
 */
export async function contextAndProblem(bundle: TaskBundle, llm: Llm, optimizer: string, optimizerKwargs: Kwargs = {}, examples?: readonly Example[]) {
  const { context } = harnessContext(bundle, llm, { optimizer, optimizerKwargs });
  const rollouts = await context.rollout(context.initialValues, examples ?? examplesOf(context.train));
  return { context, problem: context.problem(context.initialValues, rollouts) };
}

export function variable(name: string, kind: ParameterKind, value: JsonValue, extra: Partial<ProblemVariable> = {}): ProblemVariable {
  const type = { number: "float", integer: "int", text: "str", code: "code", json: Array.isArray(value) ? "list" : "dict" }[kind];
  return { name, kind, type, value, description: `The ${name}.`, ...extra };
}

/** A hand-made problem (for cases a built-in task cannot produce: long values, other kinds). */
export function problemOf(variables: readonly ProblemVariable[], overrides: Partial<ProblemInstance> = {}): ProblemInstance {
  return {
    code: `output = agent(input, ${variables.map((v) => v.name).join(", ")})`,
    documentation: { agent: "Runs the agent." },
    variables,
    inputs: [{ name: "input", type: "str", value: "ID [0]: hello\n" }],
    others: [],
    outputs: [{ name: "output", type: "str", value: "ID [0]: world\n" }],
    feedback: "ID [0]: try again\n",
    ...overrides,
  };
}

/** Each needle occurs in `text`, each after the previous one. */
export function expectInOrder(text: string, needles: readonly string[]): void {
  let from = 0;
  for (const needle of needles) {
    const at = text.indexOf(needle, from);
    expect(at, `expected ${JSON.stringify(needle)} after offset ${from}`).toBeGreaterThanOrEqual(0);
    from = at + needle.length;
  }
}

export function userPrompt(llmRequest: { readonly messages: readonly { readonly role: string; readonly content: string }[] }): string {
  const user = llmRequest.messages.find((m) => m.role === "user");
  if (!user) throw new Error("no user message");
  return user.content;
}

export function systemPrompt(llmRequest: { readonly messages: readonly { readonly role: string; readonly content: string }[] }): string {
  const system = llmRequest.messages.find((m) => m.role === "system");
  if (!system) throw new Error("no system message");
  return system.content;
}
