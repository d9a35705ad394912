/**
 * Parity scenario value-coercion (test/fixtures/parity/value-coercion.json): how a reply's value
 * becomes a parameter value, for OptoPrimeV2 (xml reply) and OptoPrime (json reply).
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
const fixture = parityFixture<{ results: Record<string, Record<string, Case>> }>("value-coercion");

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
  }
});
