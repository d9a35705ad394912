/** GSM8K semantics: the gold is what follows the last "####"; the last number of the reply must equal it as text. */
import { asExample, hfExample, requireField, type HfRow } from "./hf-example.js";
import type { HfTaskEntry } from "./hf-task-entry.js";
import { questionsDataset, type HfTaskType } from "./hf-task-type.js";
import { extractLastNumber, pyStr, pyStrip } from "./hf-text.js";

export const gsm8kType: HfTaskType = {
  key: "gsm8k",
  guideName: "gsm8k.GSM8KGuide",
  formatContext: () => "",
  rowToExamples(row: HfRow, entry: HfTaskEntry) {
    const questionField = entry.question_field ?? "question";
    const answerField = entry.answer_field ?? "answer";
    requireField(row, questionField, "question", "GSM8K");
    requireField(row, answerField, "answer", "GSM8K");
    const parts = pyStr(row[answerField]).split("####");
    return [hfExample(pyStr(row[questionField]), "", pyStrip(parts[parts.length - 1]!))];
  },
  makeDataset: questionsDataset,
  score(_task, reply, info) {
    const prediction = extractLastNumber(reply);
    const gold = extractLastNumber(asExample(info).answer);
    if (prediction !== "" && prediction === gold) return { score: 1, feedback: "The numeric answer is correct." };
    return {
      score: 0,
      feedback: `The numeric answer is wrong. Expected final number: '${gold}', got '${prediction || reply}'. Improve arithmetic reasoning and answer extraction so the final number is correct.`,
    };
  },
};
