/**
 * Qasper semantics. A paper row (`full_text` + `qas`) becomes one example per question, with
 * every extractive span, free-form answer, yes/no and "unanswerable" an alias and the evidence
 * kept for feedback; a row of the converted mirror ("Q: …\nText: …" → output) becomes one.
 */
import type { JsonValue } from "../../../src/domain/json-value.js";
import { aliasesOf, aliasScore } from "./alias-guide.js";
import { asExample, hfExample, HfRowError, requireField, rowGet, type HfExample, type HfRow } from "./hf-example.js";
import type { HfTaskEntry } from "./hf-task-entry.js";
import { examplesDataset, type HfTaskType } from "./hf-task-type.js";
import { normalizeAliases, pyStr, pyStrip, pythonListRepr, pyTruthy } from "./hf-text.js";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** `{section_name: [...], paragraphs: [[...]]}` → "<section>\n<paragraphs>" blocks; a string as it is. */
export function formatQasperContext(raw: unknown): string {
  if (!isRecord(raw)) return pyTruthy(raw) ? pyStr(raw) : "";
  const names = Array.isArray(raw.section_name) ? raw.section_name : [];
  const paragraphs = Array.isArray(raw.paragraphs) ? raw.paragraphs : [];
  const parts: string[] = [];
  paragraphs.forEach((section: unknown, index) => {
    const title = index < names.length ? pyStr(names[index]) : `Section ${index + 1}`;
    const joined = (Array.isArray(section) ? section : [])
      .filter((p) => pyStrip(pyStr(p)) !== "")
      .map(pyStr)
      .join("\n");
    if (joined) parts.push(`${title}\n${joined}`);
  });
  return parts.join("\n\n");
}

function* answersOf(raw: unknown): Generator<Record<string, unknown>> {
  if (Array.isArray(raw)) for (const item of raw) yield* answersOf(item);
  else if (isRecord(raw)) {
    if ("answer" in raw) yield* answersOf(raw.answer);
    else yield raw;
  }
}

function aliasesAndEvidence(rawAnswers: unknown): { aliases: string[]; evidence: string[] } {
  const aliases: string[] = [];
  const evidence: string[] = [];
  for (const answer of answersOf(rawAnswers)) {
    if (pyTruthy(answer.unanswerable)) aliases.push("unanswerable");
    const spans = pyTruthy(answer.extractive_spans) && Array.isArray(answer.extractive_spans) ? answer.extractive_spans : [];
    aliases.push(...spans.filter((s) => pyStrip(pyStr(s)) !== "").map(pyStr));
    const freeForm = pyStrip(pyStr(rowGet(answer, "free_form_answer", "")));
    if (freeForm) aliases.push(freeForm);
    if (typeof answer.yes_no === "boolean") aliases.push(answer.yes_no ? "yes" : "no");
    const ev = pyTruthy(answer.evidence) && Array.isArray(answer.evidence) ? answer.evidence : [];
    evidence.push(...ev.filter((e) => pyStrip(pyStr(e)) !== "").map(pyStr));
  }
  return { aliases: normalizeAliases(aliases), evidence };
}

function convertedRow(row: HfRow, entry: HfTaskEntry): HfExample {
  const questionField = entry.question_field ?? "input";
  const answerField = entry.answer_field ?? "output";
  requireField(row, questionField, "question", "Qasper");
  requireField(row, answerField, "answer", "Qasper");
  const rawInput = pyStr(row[questionField]);
  let question = rawInput;
  let context = "";
  const cut = rawInput.indexOf("\nText:");
  if (rawInput.startsWith("Q:") && cut >= 0) {
    question = pyStrip(rawInput.slice(0, cut).slice(2));
    context = pyStrip(rawInput.slice(cut + "\nText:".length));
  }
  const aliases = normalizeAliases([pyStr(row[answerField])]);
  return hfExample(question, context, aliases[0] ?? "", { aliases, question_id: pyStr(rowGet(row, "pid", rowGet(row, "id", ""))), evidence: [] });
}

export const qasperType: HfTaskType = {
  key: "qasper",
  guideName: "qasper.QasperGuide",
  formatContext: formatQasperContext,
  rowToExamples(row: HfRow, entry: HfTaskEntry) {
    if (!Object.hasOwn(row, "qas")) return [convertedRow(row, entry)];
    const context = formatQasperContext(rowGet(row, entry.context_field ?? "full_text", {}));
    const qas = row.qas;
    if (!isRecord(qas)) throw new HfRowError(`Qasper row field 'qas' must be a dict, got ${qas === null ? "NoneType" : Array.isArray(qas) ? "list" : typeof qas}`);
    const questions = Array.isArray(qas.question) ? qas.question : [];
    const ids = Array.isArray(qas.question_id) ? qas.question_id : questions.map(() => "");
    const answers = Array.isArray(qas.answers) ? qas.answers : [];
    return questions.map((question, index) => {
      const { aliases, evidence } = aliasesAndEvidence(index < answers.length ? answers[index] : []);
      return hfExample(pyStr(question), context, aliases[0] ?? "", { aliases, question_id: (index < ids.length ? ids[index] : "") as JsonValue, evidence });
    });
  },
  makeDataset: examplesDataset,
  score(_task, reply, info) {
    const aliases = aliasesOf(info);
    const ev = asExample(info).meta.evidence;
    const evidence = (Array.isArray(ev) ? ev : []).slice(0, 2).map(String);
    const hint = evidence.length > 0 ? ` Evidence hints: ${pythonListRepr(evidence)}.` : "";
    return aliasScore(reply, aliases, () => `Incorrect. Expected one of ${pythonListRepr(aliases)}, got '${reply}'.${hint} Improve long-document scholarly QA and answer grounding.`);
  },
};
