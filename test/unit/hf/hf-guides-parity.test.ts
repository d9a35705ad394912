/**
 * The hf row shapers and guides against what the original computes (test/fixtures/hf/hf-guides.json,
 * recorded from Trace-Bench d1469af's benchmarks/hf_qa on hand-written rows and tricky replies):
 * each row's examples, and each reply's score and feedback, one test per reply.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bbehEvalMetric, bbehType } from "../../../adapters/tasks/hf/bbeh.js";
import { checkAnswer, hotpotQaType } from "../../../adapters/tasks/hf/hotpot-qa.js";
import { hfExample, type HfExample, type HfRow } from "../../../adapters/tasks/hf/hf-example.js";
import type { HfTaskEntry } from "../../../adapters/tasks/hf/hf-task-entry.js";
import type { HfTaskType } from "../../../adapters/tasks/hf/hf-task-type.js";
import { HF_TASK_TYPES } from "../../../adapters/tasks/hf/hf-task-types.js";
import { extractLastChoice, extractLastNumber, normalizeText, tokenF1 } from "../../../adapters/tasks/hf/hf-text.js";

interface ShapingCase {
  readonly row: HfRow;
  readonly cfg: Record<string, unknown>;
  readonly tasks?: HfExample[];
  readonly replies?: { reply: string; per_task: { score: number; feedback: string }[] }[];
  readonly row_to_tasks_raises?: string;
}

const corpus = JSON.parse(readFileSync(new URL("../../fixtures/hf/hf-guides.json", import.meta.url), "utf8")) as { cases: Record<string, unknown> };
const cases = corpus.cases;

/** The case's task type, from its name (gsm8k_decimal_gold → gsm8k, mcqa_arc → mcqa ...). */
function typeOfCase(name: string): HfTaskType {
  const key = ["gsm8k", "mcqa", "drop", "musique", "strategy_qa", "qasper"].find((k) => name.startsWith(k))!;
  return HF_TASK_TYPES.get(key)!;
}

const shapingCases = Object.entries(cases).filter(([, c]) => typeof c === "object" && c !== null && "row" in c) as [string, ShapingCase][];

describe("hf row shaping and guides match the original (hf-guides.json)", () => {
  it("covers every task type the corpus records", () => {
    expect(new Set(shapingCases.map(([name]) => typeOfCase(name).key))).toEqual(new Set(["gsm8k", "mcqa", "drop", "musique", "strategy_qa", "qasper"]));
  });

  for (const [name, c] of shapingCases) {
    const type = typeOfCase(name);
    const entry = c.cfg as unknown as HfTaskEntry;
    if (c.row_to_tasks_raises !== undefined) {
      it(`${name}: the row is refused as the original refuses it`, () => {
        expect(() => type.rowToExamples!(c.row, entry)).toThrow(c.row_to_tasks_raises!.replace(/^\w+: /, ""));
      });
      continue;
    }
    it(`${name}: the row becomes the original's examples`, () => {
      expect(type.rowToExamples!(c.row, entry)).toEqual(c.tasks);
    });
    describe(`${name}: replies`, () => {
      for (const { reply, per_task } of c.replies ?? []) {
        it(`scores ${JSON.stringify(reply)} as the original does`, async () => {
          const examples = type.rowToExamples!(c.row, entry);
          const dataset = type.makeDataset(examples);
          const got = await Promise.all(examples.map((_, i) => type.score(dataset.inputs[i], reply, dataset.infos[i], {})));
          expect(got).toEqual(per_task.map(({ score, feedback }) => ({ score, feedback })));
        });
      }
    });
  }

  describe("HotpotQA check_answer: the normalised gold contained in the normalised reply", () => {
    for (const { expected, response, check_answer } of cases.hotpot_check_answer as { expected: string; response: string; check_answer: boolean }[]) {
      it(`${JSON.stringify(response)} for ${JSON.stringify(expected)} → ${check_answer}`, () => {
        expect(checkAnswer(response, expected)).toBe(check_answer);
      });
    }
  });

  describe("HotpotQA guide", () => {
    // The recording's example: question "Where is the Eiffel Tower?", gold "Paris", no context.
    const info = hfExample("Where is the Eiffel Tower?", "", "Paris");
    for (const { reply, result } of cases.hotpot_guide as { reply: string; result: [number, string] }[]) {
      it(`scores ${JSON.stringify(reply)}`, async () => {
        expect(await hotpotQaType.score(info, reply, info, {})).toEqual({ score: result[0], feedback: result[1] });
      });
    }
  });

  describe("BBEH eval_metric: last (X) for a choice gold, else exact after trimming", () => {
    for (const { true: gold, prediction, result } of cases.bbeh_eval_metric as { true: string; prediction: string; result: boolean }[]) {
      it(`${JSON.stringify(prediction)} for ${JSON.stringify(gold)} → ${result}`, () => {
        expect(bbehEvalMetric(gold, prediction)).toBe(result);
      });
    }
    it("the guide turns it into 1 / 0 with the original's feedback", async () => {
      expect(await bbehType.score("Q?", "(B)", "(B)", {})).toEqual({ score: 1, feedback: "The answer is correct." });
      const wrong = await bbehType.score("Is   it\n(A) or (B)?", "(A)", "(B)", {});
      expect(wrong.score).toBe(0);
      expect(wrong.feedback).toBe('The answer is wrong for task: "Is it (A) or (B)?". Expected: "(B)", Got: "(A)". Improve the agent to produce the correct answer in the expected format: (A)/(B) for multiple-choice, or an exact string/number for free-form questions.');
    });
  });

  describe("shared helpers", () => {
    const common = cases.common as {
      normalize_text: Record<string, string>;
      token_f1: [string, string, number][];
      extract_last_number: Record<string, string>;
      extract_last_choice: Record<string, string>;
    };
    for (const [input, out] of Object.entries(common.normalize_text)) it(`normalize_text(${JSON.stringify(input)}) = ${JSON.stringify(out)}`, () => expect(normalizeText(input)).toBe(out));
    for (const [a, b, f1] of common.token_f1) it(`token_f1(${JSON.stringify(a)}, ${JSON.stringify(b)}) = ${f1}`, () => expect(tokenF1(a, b)).toBeCloseTo(f1, 12));
    for (const [input, out] of Object.entries(common.extract_last_number)) it(`extract_last_number(${JSON.stringify(input)}) = ${JSON.stringify(out)}`, () => expect(extractLastNumber(input)).toBe(out));
    for (const [input, out] of Object.entries(common.extract_last_choice)) it(`extract_last_choice(${JSON.stringify(input)}) = ${JSON.stringify(out)}`, () => expect(extractLastChoice(input)).toBe(out));
  });
});
