/**
 * The original's VeriBench agent: one trainable text, `lean_code`, returned as the answer whatever
 * the input (the optimizer edits the Lean translation directly).
 */
import type { Agent } from "../../../src/domain/agent.js";
import type { JsonValue } from "../../../src/domain/json-value.js";
import type { ParameterSpec } from "../../../src/domain/parameter.js";

export const INITIAL_LEAN_CODE = "-- placeholder: Lean 4 translation pending";

export function leanCodeParameters(): ParameterSpec[] {
  return [{ name: "lean_code", kind: "text", value: INITIAL_LEAN_CODE, description: "[ParameterNode] The Lean 4 translation of the task's Python code.", trainable: true }];
}

/**
 * Lean texts the stub LLM of mode stub may propose (it writes none of its own), written for
 * trace-bench: a stub run then moves between translations the keyword guide scores differently.
 */
export const LEAN_CODE_STUB_ALTERNATIVES: readonly JsonValue[] = [
  INITIAL_LEAN_CODE,
  ["/-! The identity on natural numbers, and that it returns its input. -/", "def solution (n : Nat) : Nat := n", "", "theorem solution_id (n : Nat) : solution n = n := by rfl"].join("\n"),
  ["namespace Translation", "", "def count (xs : List Nat) : Nat := xs.length", "", "theorem count_nil : count [] = 0 := by", "  sorry", "", "end Translation"].join("\n"),
];

export const directAgent: Agent = {
  name: "VeriBenchAgent",
  program: {
    code: ["def __call__(task_input):", "    return translate(lean_code, task_input)", "", "def translate(lean_code, task_input):", "    return lean_code"].join("\n"),
    documentation: { translate: "Returns the Lean 4 code (the trainable lean_code) as the translation of the task's Python code." },
  },
  run: (_input, values) => String(values.lean_code ?? ""),
};
