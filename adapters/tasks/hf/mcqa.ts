/**
 * Multiple-choice semantics (ARC, QASC, QuALITY, AQuA-RAT): the question becomes a prompt listing
 * "(label) text" options; a reply scores 1 when its last choice label is the gold label (case
 * aside) or when it contains the gold option's text, both normalised.
 */
import type { JsonValue } from "../../../src/domain/json-value.js";
import { asExample, hfExample, HfRowError, requireField, rowGet, type HfRow } from "./hf-example.js";
import type { HfTaskEntry } from "./hf-task-entry.js";
import { questionsDataset, type HfTaskType } from "./hf-task-type.js";
import { extractLastChoice, normalizeText, pyStr, pyStrip, pyTruthy } from "./hf-text.js";

export type ChoicePair = readonly [label: string, text: string];

const letter = (index: number) => String.fromCharCode(65 + index);

/** (label, text) pairs from the common schemas: `{label, text}` lists, a list of dicts, a list of strings. */
export function choicePairs(raw: unknown): ChoicePair[] {
  if (Array.isArray(raw)) {
    if (raw.length > 0 && typeof raw[0] === "object" && raw[0] !== null && !Array.isArray(raw[0])) {
      return raw.map((item: Record<string, unknown>, index) => [pyStr(rowGet(item, "label", letter(index))), pyStr(rowGet(item, "text", rowGet(item, "choice", "")))] as const);
    }
    return raw.map((choice, index) => [letter(index), pyStr(choice)] as const);
  }
  if (typeof raw === "object" && raw !== null) {
    const record = raw as Record<string, unknown>;
    const firstTruthy = (...values: unknown[]) => values.find(pyTruthy);
    const texts = ((firstTruthy(record.text, record.texts, record.options) ?? []) as unknown[]).map(pyStr);
    let labels = ((firstTruthy(record.label, record.labels) ?? []) as unknown[]).map(pyStr);
    if (labels.length === 0) labels = texts.map((_, index) => letter(index));
    const n = Math.min(labels.length, texts.length);
    return Array.from({ length: n }, (_, i) => [labels[i]!, texts[i]!] as const);
  }
  return [];
}

function isPythonInt(value: unknown): value is number | bigint {
  return typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value));
}

/** The option label a raw answer names: an index (from `indexBase`), a label, or an option's text. */
export function answerToChoiceLabel(rawAnswer: unknown, pairs: readonly ChoicePair[], indexBase = 0): string {
  if (isPythonInt(rawAnswer)) {
    const index = Number(rawAnswer) - indexBase;
    return index >= 0 && index < pairs.length ? pairs[index]![0] : pyStr(rawAnswer);
  }
  const answer = pyStrip(pyStr(rawAnswer));
  for (const [label, text] of pairs) {
    if (answer === label || normalizeText(answer) === normalizeText(text)) return label;
  }
  return answer;
}

export function formatMcqPrompt(question: string, pairs: readonly ChoicePair[], context = ""): string {
  const prefix = context ? `Context:\n${context}\n\n` : "";
  const options = pairs.map(([label, text]) => `(${label}) ${text}`).join("\n");
  return `${prefix}Question: ${question}\nOptions:\n${options}\nAnswer:`;
}

export const mcqaType: HfTaskType = {
  key: "mcqa",
  guideName: "mcqa.MCQGuide",
  formatContext: (raw) => (pyTruthy(raw) ? pyStr(raw) : ""),
  rowToExamples(row: HfRow, entry: HfTaskEntry) {
    const questionField = entry.question_field ?? "question";
    const answerField = entry.answer_field ?? "answer";
    const optionsField = entry.options_field ?? "options";
    requireField(row, questionField, "question", "MCQ");
    requireField(row, answerField, "answer", "MCQ");
    const pairs = choicePairs(rowGet(row, optionsField, row.choices));
    if (pairs.length === 0) throw new HfRowError(`MCQ row has no options in field '${optionsField}'`);
    const context = entry.context_field ? pyStr(rowGet(row, entry.context_field, "")) : "";
    const label = answerToChoiceLabel(row[answerField], pairs, Math.trunc(entry.answer_index_base ?? 0));
    const goldText = pairs.find(([optionLabel]) => optionLabel === label)?.[1] ?? "";
    const prompt = formatMcqPrompt(pyStr(row[questionField]), pairs, context);
    const options: JsonValue[] = pairs.map(([l, t]) => [l, t]);
    return [hfExample(prompt, context, label, { gold_label: label, gold_text: goldText, options })];
  },
  makeDataset: questionsDataset,
  score(_task, reply, info) {
    const example = asExample(info);
    const predicted = extractLastChoice(reply);
    const goldLabel = pyStr(example.meta.gold_label ?? example.answer);
    const goldText = pyStr(example.meta.gold_text ?? "");
    if (predicted && pyStrip(predicted).toLowerCase() === pyStrip(goldLabel).toLowerCase()) return { score: 1, feedback: "The selected option is correct." };
    if (goldText && normalizeText(reply).includes(normalizeText(goldText))) return { score: 1, feedback: "The selected option text is correct." };
    return {
      score: 0,
      feedback: `Incorrect. Expected option "${goldLabel}" (${goldText}), got "${reply}". Improve option-sensitive reasoning and produce the final answer in the expected MCQ format.`,
    };
  },
};
