/**
 * Parity scenario prompt-truncation: a 2500-character str parameter and a trainable op whose body
 * holds a 2500-character literal (the output is the text plus '!'). OptoPrimeV2 shows variables
 * whole and cuts node values (#Others, #Outputs) at 2000 characters; OPROv2 cuts the str solution
 * at 2000 and the code solution's body at 2000, keeping its definition line and doc comment.
 */
import { afterAll, describe, expect, it } from "vitest";
import { exactMatch } from "../../../../adapters/tasks/guides.js";
import { JsSandbox } from "../../../../adapters/sandbox/js-sandbox.js";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import type { ChatRequest } from "../../../../src/llm/llm.js";
import { defineTraceModel } from "../../../../src/opt/trace/model.js";
import { graphName } from "../../../support/prompt-facts.js";
import { scriptedLlm } from "../../../support/scripted-llm.js";
import { harnessContext } from "../../../support/trainer-harness.js";
import { fixture } from "./support.js";

interface Shown {
  readonly tag?: string;
  readonly shown_chars_before_marker: number;
  readonly truncated: boolean;
  readonly type?: string;
}
const recorded = fixture<{ runs: Record<string, { sections: string[]; variables_shown: Record<string, Shown>; nodes_shown: Record<string, Shown> }> }>("prompt-truncation");
const MARKER = "...(skipped due to length limit)";

const js = new JsSandbox();
afterAll(() => js.close());

const SOURCE = `function respond(text, x) {
  // Appends an exclamation mark to the text.
  const filler = "${"f".repeat(2500)}";
  return text + "!";
}`;

function longTask(): TaskBundle {
  const model = defineTraceModel({
    name: "LongAgentModel",
    parameters: [{ name: "text", kind: "text", value: "t".repeat(2500), description: "" }],
    trainableOps: [{ name: "respond", source: SOURCE, run: (source, args, context) => js.run(source, args, context.signal ? { signal: context.signal } : {}) }],
    forward: (self, x) => self.call("respond", { text: self.param("text"), x }),
  });
  return { taskId: "parity:long", parameters: model.parameters, agent: model.agent, guide: exactMatch, train_dataset: { inputs: ["x"], infos: ["y"] }, optimizer_kwargs: {}, metadata: {} };
}

/** Each value block in the prompt (variables, solutions, nodes): its length before the marker and whether it was cut. */
function shownValues(request: ChatRequest): Record<string, Shown> {
  const user = request.messages.find((m) => m.role === "user")!.content;
  const blocks = [...user.matchAll(/<(variable|solution|node) name="([^"]*)" type="([^"]*)">\n<value>\n([\s\S]*?)\n<\/value>/g)];
  return Object.fromEntries(
    blocks.map(([, tag, name, type, value]) => {
      const cut = value!.endsWith(MARKER);
      return [graphName(name!), { tag: tag!, type: type!, shown_chars_before_marker: cut ? value!.length - MARKER.length : value!.length, truncated: cut }];
    }),
  );
}

describe("parity prompt-truncation", () => {
  for (const [optimizer, run] of Object.entries(recorded.runs)) {
    it(`prompt-truncation ${optimizer}: variables ${JSON.stringify(Object.values(run.variables_shown).map((v) => v.truncated))} cut, nodes cut at 2000`, async () => {
      const llm = scriptedLlm(["TERMINATE"]);
      const { context } = harnessContext(longTask(), llm, { optimizer });
      const rollouts = await context.rollout(context.initialValues, [{ input: "x", info: "y" }]);
      expect(rollouts[0]!.response).toBe(`${"t".repeat(2500)}!`);
      await context.createOptimizer().propose(context.problem(context.initialValues, rollouts), new AbortController().signal);
      const shown = shownValues(llm.requests[0]!);
      const user = llm.requests[0]!.messages.find((m) => m.role === "user")!.content;
      expect([...user.matchAll(/^# (.+)$/gm)].map((m) => m[1])).toEqual(run.sections);

      const variables = Object.entries(shown).filter(([, v]) => v.tag !== "node");
      const expectedVariables = Object.values(run.variables_shown);
      expect(variables.map(([, v]) => [v.type, v.truncated])).toEqual(expectedVariables.map((v) => [v.type, v.truncated]));
      // The str value: 2500 characters whole, or 2000 before the marker.
      expect(variables[0]![1].shown_chars_before_marker).toBe(expectedVariables[0]!.shown_chars_before_marker);
      // The code: whole, or its head (definition line and doc comment) whole and its body cut at 2000.
      const [head] = SOURCE.split("  const filler");
      expect(variables[1]![1].shown_chars_before_marker).toBe(expectedVariables[1]!.truncated ? head!.length + 2000 : SOURCE.length);

      const nodes = Object.fromEntries(Object.entries(shown).filter(([name]) => !variables.some(([v]) => v === name)));
      expect(Object.keys(nodes).sort()).toEqual(Object.keys(run.nodes_shown).sort());
      for (const [name, node] of Object.entries(run.nodes_shown)) {
        expect(nodes[name]!.truncated, name).toBe(node.truncated);
        if (node.truncated || name === "x#") expect(nodes[name]!.shown_chars_before_marker, name).toBe(node.shown_chars_before_marker);
      }
    });
  }
});
