/**
 * Parity scenario value-coercion (test/fixtures/parity/value-coercion.json): how a reply's value
 * becomes a parameter value, for OptoPrimeV2 (xml reply) and OptoPrime (json reply). The
 * `code_value` case pins a deliberate difference: the reference reformats a code reply with black
 * (Python); our trainable code is JavaScript, so the reply's source is stored as written.
 */
import { describe, expect, it } from "vitest";
import { createOptimizer } from "../../../../src/opt/optimizers/optimizer-registry.js";
import type { ParameterKind } from "../../../../src/domain/parameter.js";
import { parityFixture } from "../../../support/parity.js";
import { jsonReply, scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { problemOf, signal, variable } from "../optimizers/fixtures.js";

interface Case {
  initial: number | string;
  reply_value_text: string;
  update_returned: { value: unknown };
  returned_type: string;
}
interface CodeCase {
  reply_code_text: string;
  stored_code_text: string;
  reformatted: boolean;
}
const fixture = parityFixture<{ results: Record<string, Record<string, Case>>; code_value: Record<string, CodeCase> }>("value-coercion");

async function propose(optimizer: string, c: Case) {
  const kind: ParameterKind = typeof c.initial === "number" ? "number" : "text";
  const reply = optimizer === "OptoPrimeV2" ? xmlReply({ value: c.reply_value_text }) : jsonReply({ value: c.reply_value_text });
  return createOptimizer(optimizer, {}, scriptedLlm([reply])).propose(problemOf([variable("value", kind, c.initial)]), signal);
}

describe("parity value-coercion", () => {
  for (const optimizer of Object.keys(fixture.results)) {
    const cases = fixture.results[optimizer]!;
    it(`value-coercion ${optimizer}: a float parameter reads "7" as 7.0; a str parameter keeps "42" as text`, async () => {
      for (const name of ["float_param_reply_int_text", "str_param_reply_number"]) {
        const c = cases[name]!;
        expect((await propose(optimizer, c)).update, name).toEqual(c.update_returned);
      }
    });

    it(`value-coercion ${optimizer} (deliberate difference): a float parameter does not take "abc" or "[1, 2]"`, async () => {
      // The reference stores the raw text "abc" and the list [1, 2] in the float parameter. We
      // leave the parameter unchanged and note why: a TypeScript agent is written for its kind.
      for (const name of ["float_param_reply_abc", "float_param_reply_list_text"]) {
        const c = cases[name]!;
        expect(c.returned_type).not.toBe("float");
        const proposal = await propose(optimizer, c);
        expect(proposal.update, name).toEqual({});
        expect(proposal.notes, name).toEqual([expect.stringMatching(/^value: not a number: .*; left unchanged$/)]);
      }
    });

    it(`value-coercion ${optimizer} code_value (deliberate difference): a code reply is stored as written, not reformatted`, async () => {
      const c = fixture.code_value[optimizer]!;
      // The reference's black turned the two-space body into four spaces with spaces around `+`.
      expect(c.reformatted).toBe(true);
      expect(c.stored_code_text).not.toBe(c.reply_code_text);
      const reply = optimizer === "OptoPrimeV2" ? xmlReply({ __code0: c.reply_code_text }) : jsonReply({ __code0: c.reply_code_text });
      const code = variable("__code0", "code", "def emit(self, value, x):\n    return value\n", { parameter: "__code_emit" });
      const proposal = await createOptimizer(optimizer, {}, scriptedLlm([reply])).propose(problemOf([code]), signal);
      expect(proposal.update).toEqual({ __code_emit: c.reply_code_text });
      expect(proposal.notes).toEqual([]);
    });
  }
});
