/**
 * BigBenchExtraHard semantics: a gold "(X)" is matched by the last "(X)" of the reply, anything
 * else by exact equality after trimming. The agent gets the question text, the guide the answer.
 */
import type { HfExample } from "./hf-example.js";
import type { HfTaskType } from "./hf-task-type.js";
import { pyStrip as strip, pythonSplit } from "./hf-text.js";

export function bbehEvalMetric(gold: string, prediction: string): boolean {
  if (/\([A-Z]\)/.test(gold)) {
    const matches = prediction.match(/\([A-Z]\)/g);
    return (matches ? matches[matches.length - 1] : "") === gold;
  }
  return strip(prediction) === strip(gold);
}

export const bbehType: HfTaskType = {
  key: "bbeh",
  guideName: "bbeh.BBEHGuide",
  formatContext: () => "",
  makeDataset: (examples: readonly HfExample[]) => ({ inputs: examples.map((e) => e.question), infos: examples.map((e) => e.answer) }),
  score(task, reply, info) {
    const gold = typeof info === "string" ? info : String((info as HfExample | null)?.answer ?? info);
    if (bbehEvalMetric(gold, reply)) return { score: 1, feedback: "The answer is correct." };
    const excerpt = [...pythonSplit(String(task)).join(" ")].slice(0, 240).join("");
    return {
      score: 0,
      feedback:
        `The answer is wrong for task: "${excerpt}". ` +
        `Expected: "${gold}", Got: "${reply}". ` +
        "Improve the agent to produce the correct answer in the expected format: " +
        "(A)/(B) for multiple-choice, or an exact string/number for free-form questions.",
    };
  },
};
