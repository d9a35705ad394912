/**
 * Parity scenario terminate-anywhere: one step of each prompt optimizer on agent A1 (one float
 * `value` = 0.0, target 3.0) with five replies. The reference discards a reply containing the
 * uppercase word TERMINATE anywhere, even with a valid variable block; lowercase is ordinary text.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { createOptimizer } from "../../../../src/opt/optimizers/optimizer-registry.js";
import { DIALECTS } from "../../../../src/opt/optimizers/prompt-optimizer.js";
import { jsonReply, scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { problemOf, signal, variable } from "../optimizers/fixtures.js";

interface Fixture {
  readonly results: Record<string, Record<string, { llm_calls: number; update_returned: Record<string, number> }>>;
}
const fixture = JSON.parse(readFileSync(new URL("../../../fixtures/parity/terminate-anywhere.json", import.meta.url), "utf8")) as Fixture;

/** The scripted reply of each case, in the optimizer's format. */
function reply(optimizer: string, kase: string): string {
  const format = DIALECTS[optimizer]!.format;
  const valid = (reasoning: string) => (format === "xml" ? xmlReply({ value: 3.0 }, reasoning) : jsonReply({ value: 3.0 }, reasoning));
  switch (kase) {
    case "control_no_terminate":
      return valid("Raise the value to the target.");
    case "terminate_inside_reasoning":
      return valid("Raise the value to the target; otherwise TERMINATE.");
    case "terminate_after_variables":
      return `${valid("Raise the value to the target.")}\nTERMINATE`;
    case "terminate_lowercase":
      return valid("Raise the value; no need to terminate yet.");
    case "bare_terminate":
      return "TERMINATE";
    default:
      throw new Error(`unknown case ${kase}`);
  }
}

const problem = problemOf([variable("value", "number", 0.0)], { feedback: "ID [0]: target=3.0" });

describe("parity terminate-anywhere", () => {
  for (const [optimizer, cases] of Object.entries(fixture.results)) {
    for (const [kase, recorded] of Object.entries(cases)) {
      it(`terminate-anywhere ${optimizer} ${kase}: ${recorded.llm_calls} call, update ${JSON.stringify(recorded.update_returned)}`, async () => {
        const llm = scriptedLlm([reply(optimizer, kase)]);
        const proposal = await createOptimizer(optimizer, {}, llm).propose(problem, signal);
        expect(llm.requests).toHaveLength(recorded.llm_calls);
        expect(proposal.update).toEqual(recorded.update_returned);
        // A discarded reply is a TERMINATE, not an unreadable one.
        if (Object.keys(recorded.update_returned).length === 0) expect(proposal).toMatchObject({ terminated: true, notes: [] });
      });
    }
  }
});
