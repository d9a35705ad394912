/**
 * The generic row shaping (the original's `_default_row_to_tasks`), used by task types without
 * their own: the question, the answer (the first `text` of a dict answer), and the context from
 * `context_field` (else `context`, else `passage`) flattened by `context_format`.
 */
import { hfExample, requireField, rowGet, type HfExample, type HfRow } from "./hf-example.js";
import type { HfTaskEntry } from "./hf-task-entry.js";
import { pyStr } from "./hf-text.js";

export function defaultRowToExamples(row: HfRow, entry: HfTaskEntry, formatContext: (raw: unknown) => string): HfExample[] {
  const questionField = entry.question_field ?? "question";
  const answerField = entry.answer_field ?? "answer";
  requireField(row, questionField, "question", "Dataset");
  requireField(row, answerField, "answer", "Dataset");
  const rawAnswer = row[answerField];
  let answer: string;
  if (typeof rawAnswer === "object" && rawAnswer !== null && !Array.isArray(rawAnswer)) {
    const texts = (rawAnswer as Record<string, unknown>).text;
    answer = Array.isArray(texts) && texts.length > 0 ? pyStr(texts[0]) : "";
  } else {
    answer = pyStr(rawAnswer);
  }
  const rawContext = entry.context_field ? rowGet(row, entry.context_field, "") : rowGet(row, "context", rowGet(row, "passage", ""));
  const format = entry.context_format ?? "plain";
  const context = format === "none" ? "" : format === "plain" ? pyStr(rawContext) : formatContext(rawContext);
  return [hfExample(pyStr(row[questionField]), context, answer)];
}
