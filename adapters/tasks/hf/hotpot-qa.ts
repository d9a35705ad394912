/**
 * HotpotQA semantics (task type "hfqa"): the normalised gold answer contained in the normalised
 * reply scores 1, anything else 0 with the question and context in the feedback.
 */
import { asExample, type HfExample } from "./hf-example.js";
import { examplesDataset, type HfTaskType } from "./hf-task-type.js";
import { normalizeText } from "./hf-text.js";

/** `{title: [...], sentences: [[...]]}` → "Paragraph N (title):\n<sentences joined by spaces>" blocks. */
export function formatHotpotContext(raw: unknown): string {
  const record = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const titles = Array.isArray(record.title) ? record.title : [];
  const sentences = Array.isArray(record.sentences) ? record.sentences : [];
  const parts: string[] = [];
  for (let j = 0; j < Math.min(titles.length, sentences.length); j += 1) {
    const sents = sentences[j];
    parts.push(`Paragraph ${j + 1} (${String(titles[j])}):\n${(Array.isArray(sents) ? sents.map(String) : [String(sents)]).join(" ")}`);
  }
  return parts.join("\n\n");
}

/** The reply contains the gold answer, both normalised (an empty gold is contained in anything). */
export function checkAnswer(reply: string, expected: string): boolean {
  return normalizeText(reply).includes(normalizeText(expected));
}

export const hotpotQaType: HfTaskType = {
  key: "hfqa",
  guideName: "hotpot_qa.HotpotQAGuide",
  formatContext: formatHotpotContext,
  makeDataset: examplesDataset,
  score(_task, reply, info) {
    const example: HfExample = asExample(info);
    if (checkAnswer(reply, example.answer)) return { score: 1, feedback: "Correct." };
    return {
      score: 0,
      feedback:
        `Incorrect. Expected: '${example.answer}', Got: '${reply}'.\n` +
        `Question: ${example.question}\n` +
        `Context: ${example.context}\n` +
        "Improve the agent's multi-hop reasoning over multiple context passages.",
    };
  },
};
