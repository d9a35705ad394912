/** DROP semantics: the passage as context, every span/number/date of the answer an alias, alias-tolerant scoring. */
import { aliasesOf, aliasScore } from "./alias-guide.js";
import { hfExample, HfRowError, rowGet, type HfRow } from "./hf-example.js";
import type { HfTaskEntry } from "./hf-task-entry.js";
import { examplesDataset, type HfTaskType } from "./hf-task-type.js";
import { normalizeAliases, pyStr, pyStrip, pythonListRepr, pyTruthy } from "./hf-text.js";

const nonBlank = (value: unknown) => pyStrip(pyStr(value)) !== "";

/** Answer strings from DROP's shapes: `{spans, number(s), date(s)}`, a list, or a scalar. */
export function dropAnswerValues(raw: unknown): string[] {
  const values: string[] = [];
  if (Array.isArray(raw)) {
    values.push(...raw.filter(nonBlank).map(pyStr));
  } else if (typeof raw === "object" && raw !== null) {
    const record = raw as Record<string, unknown>;
    for (const key of ["spans", "number", "numbers", "date", "dates"]) {
      const value = record[key];
      if (Array.isArray(value)) values.push(...value.filter(nonBlank).map(pyStr));
      else if (value !== undefined && value !== null && nonBlank(value)) values.push(pyStr(value));
    }
  } else if (raw !== undefined && raw !== null && nonBlank(raw)) {
    values.push(pyStr(raw));
  }
  return values;
}

export const dropType: HfTaskType = {
  key: "drop",
  guideName: "drop_qa.DROPGuide",
  formatContext: (raw) => (pyTruthy(raw) ? pyStr(raw) : ""),
  rowToExamples(row: HfRow, entry: HfTaskEntry) {
    const questionField = entry.question_field ?? "question";
    const answerField = entry.answer_field ?? "answers_spans";
    const contextField = entry.context_field ?? "passage";
    if (!Object.hasOwn(row, questionField)) throw new HfRowError(`DROP row missing question field '${questionField}'`);
    const aliases = normalizeAliases(dropAnswerValues(row[answerField]));
    return [hfExample(pyStr(row[questionField]), pyStr(rowGet(row, contextField, "")), aliases[0] ?? "", { aliases })];
  },
  makeDataset: examplesDataset,
  score(_task, reply, info) {
    const aliases = aliasesOf(info);
    return aliasScore(reply, aliases, () => `Incorrect. Expected one of ${pythonListRepr(aliases)}, got '${reply}'. Improve passage-based arithmetic/discrete reasoning and answer normalization.`);
  },
};
