/**
 * The text POLCA embeds for a candidate: Python's `str({name: value})` of its parameter values, as
 * the original embeds `str({py_name: value})` of the candidate's update dict.
 */
import { pythonRepr } from "../../codec/python-repr.js";
import type { ParameterValues } from "../../domain/parameter.js";

export function candidateText(values: ParameterValues): string {
  return pythonRepr(values);
}
