/**
 * The twenty BBEH boolean_expressions examples (expression, "True"/"False") that the original's
 * multiobjective_bbeh task embeds in its source (trace_bench/examples/multiobjective_bbeh.py,
 * `_EMBEDDED_EXAMPLES`) and uses when no BBEH clone is found. Data only.
 */
export interface BbehExample {
  readonly input: string;
  readonly target: string;
}

export const BBEH_BOOLEAN_EMBEDDED_EXAMPLES: readonly BbehExample[] = [
  { input: "not ( True ) and ( True ) is", target: "False" },
  { input: "True and ( True ) and not ( False ) is", target: "True" },
  { input: "( not False ) and ( True ) is", target: "True" },
  { input: "not ( not True ) is", target: "True" },
  { input: "False or ( True and False ) is", target: "False" },
  { input: "( True ) and ( not True or False ) is", target: "False" },
  { input: "not ( False or True ) is", target: "False" },
  { input: "True or False and not False is", target: "True" },
  { input: "not not not True is", target: "False" },
  { input: "( False and True ) or ( True and True ) is", target: "True" },
  { input: "not ( True and False ) or False is", target: "True" },
  { input: "False and not ( True ) or True is", target: "True" },
  { input: "( True or False ) and not ( False ) is", target: "True" },
  { input: "not False and False is", target: "False" },
  { input: "( not True ) or ( not False ) is", target: "True" },
  { input: "True and True and True is", target: "True" },
  { input: "False or False or False is", target: "False" },
  { input: "not ( False and False ) is", target: "True" },
  { input: "( True and False ) or ( False and True ) is", target: "False" },
  { input: "not True or not False is", target: "True" },
];
