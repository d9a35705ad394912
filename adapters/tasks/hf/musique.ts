/** MuSiQue semantics: numbered paragraphs as context, the answer and its aliases scored alias-tolerantly. */
import { aliasesOf, aliasScore } from "./alias-guide.js";
import { hfExample, HfRowError, rowGet, type HfRow } from "./hf-example.js";
import type { HfTaskEntry } from "./hf-task-entry.js";
import { examplesDataset, type HfTaskType } from "./hf-task-type.js";
import { normalizeAliases, pyStr, pythonListRepr, pyTruthy } from "./hf-text.js";

/** `[{title, paragraph_text}, ...]` → "Paragraph N (title):\n<text>" blocks. */
export function formatMusiqueContext(raw: unknown): string {
  const paragraphs = pyTruthy(raw) && Array.isArray(raw) ? raw : [];
  return paragraphs
    .map((paragraph: Record<string, unknown>, index) => {
      const title = rowGet(paragraph, "title", `Paragraph ${index + 1}`);
      const text = rowGet(paragraph, "paragraph_text", rowGet(paragraph, "paragraph", ""));
      return `Paragraph ${index + 1} (${pyStr(title)}):\n${pyStr(text)}`;
    })
    .join("\n\n");
}

export const musiqueType: HfTaskType = {
  key: "musique",
  guideName: "musique.MuSiQueGuide",
  formatContext: formatMusiqueContext,
  rowToExamples(row: HfRow, entry: HfTaskEntry) {
    const questionField = entry.question_field ?? "question";
    const contextField = entry.context_field ?? "paragraphs";
    if (!Object.hasOwn(row, questionField)) throw new HfRowError(`MuSiQue row missing question field '${questionField}'`);
    const extra = pyTruthy(row.answer_aliases) && Array.isArray(row.answer_aliases) ? row.answer_aliases : [];
    const aliases = normalizeAliases([pyStr(rowGet(row, "answer", "")), ...extra.map(pyStr)]);
    return [hfExample(pyStr(row[questionField]), formatMusiqueContext(rowGet(row, contextField, [])), aliases[0] ?? "", { aliases })];
  },
  makeDataset: examplesDataset,
  score(_task, reply, info) {
    const aliases = aliasesOf(info);
    return aliasScore(reply, aliases, () => `Incorrect. Gold aliases: ${pythonListRepr(aliases)}. Got: '${reply}'. Improve compositional multi-hop reasoning across the provided paragraphs.`);
  },
};
