/** Guides shared by the small built-in tasks (spec §6.5). */
import { pythonFloatRepr } from "../../src/codec/python-json.js";
import type { Guide } from "../../src/domain/guide.js";

/** Score `-|response - reference|`; a response that is not a number scores -1. The feedback writes the target as Python does (`target=3.0`). */
export const negativeAbsoluteError: Guide = {
  name: "trace_bench.guides.NegativeAbsoluteError",
  evaluate(_input, response, info) {
    const reference = Number(info);
    const value = typeof response === "number" ? response : Number(String(response).trim());
    if (String(response).trim() === "" || !Number.isFinite(value)) {
      return { score: -1, feedback: `could not parse a number from the response ${JSON.stringify(response)}; target=${pythonFloatRepr(reference)}` };
    }
    return { score: -Math.abs(value - reference), feedback: `target=${pythonFloatRepr(reference)}` };
  },
};

/** Score 1 when the response equals the reference exactly, else 0. */
export const exactMatch: Guide = {
  name: "trace_bench.guides.ExactMatch",
  evaluate(_input, response, info) {
    return response === info
      ? { score: 1, feedback: "Correct." }
      : { score: 0, feedback: `Expected: ${String(info)}` };
  },
};
