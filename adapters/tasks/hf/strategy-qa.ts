/** StrategyQA semantics: a boolean gold as "yes"/"no"; the first yes/no token of the normalised reply decides. */
import { asExample, hfExample, requireField, type HfRow } from "./hf-example.js";
import type { HfTaskEntry } from "./hf-task-entry.js";
import { questionsDataset, type HfTaskType } from "./hf-task-type.js";
import { normalizeText, pyStr, pythonSplit } from "./hf-text.js";

/** bool / "yes" / "true" / 1 → "yes"; the negatives → "no"; anything else stays visible as it normalises. */
export function goldYesNo(raw: unknown): string {
  if (typeof raw === "boolean") return raw ? "yes" : "no";
  const text = normalizeText(pyStr(raw));
  if (text === "yes" || text === "true" || text === "1") return "yes";
  if (text === "no" || text === "false" || text === "0") return "no";
  return text;
}

export const strategyQaType: HfTaskType = {
  key: "strategy_qa",
  guideName: "strategy_qa.StrategyQAGuide",
  formatContext: () => "",
  rowToExamples(row: HfRow, entry: HfTaskEntry) {
    const questionField = entry.question_field ?? "question";
    const answerField = entry.answer_field ?? "answer";
    requireField(row, questionField, "question", "StrategyQA");
    requireField(row, answerField, "answer", "StrategyQA");
    const prompt = `Question: ${pyStr(row[questionField])}\nAnswer with exactly 'Yes' or 'No'.\nAnswer:`;
    return [hfExample(prompt, "", goldYesNo(row[answerField]))];
  },
  makeDataset: questionsDataset,
  score(_task, reply, info) {
    const gold = asExample(info).answer;
    const text = normalizeText(reply);
    const prediction = pythonSplit(text.replaceAll(".", " ")).find((token) => token === "yes" || token === "no") ?? "";
    if (prediction && prediction === gold) return { score: 1, feedback: "The yes/no answer is correct." };
    return {
      score: 0,
      feedback: `The yes/no answer is wrong. Expected '${gold}', got '${prediction || [...text].slice(0, 40).join("")}'. Decompose the implicit reasoning steps and state the final Yes/No explicitly.`,
    };
  },
};
