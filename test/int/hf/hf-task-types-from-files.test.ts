/**
 * Every hf task type, end to end from a data directory with the catalogue's own entry: hand-written
 * rows in each dataset's schema become the agent's inputs, and replies are scored by the type's
 * rules (containment, last (X), last number, choice label or text, aliases with token F1, first yes/no).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HfSuite } from "../../../adapters/tasks/hf/hf-suite.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { writeJsonl } from "../../support/hf-datasets.js";

let data: string;
let suite: HfSuite;
beforeAll(() => {
  data = mkdtempSync(join(tmpdir(), "hf-types-"));
  suite = new HfSuite({ HF_HUB_CACHE: join(data, "no-hub") });
});
afterAll(() => rmSync(data, { recursive: true, force: true }));

/** Writes the rows as the train split and loads `n` train examples of the task. */
async function load(taskId: string, path: string, rows: object[], n = rows.length): Promise<TaskBundle> {
  writeJsonl(join(data, ...path.split("/"), "train.jsonl"), rows);
  return suite.load(taskId, { data_dir: data, num_train: n, num_validate: 0, num_test: 0 });
}

/** The guide's score for a reply to train example i. */
async function score(bundle: TaskBundle, i: number, reply: string): Promise<number> {
  return (await bundle.guide.evaluate(bundle.train_dataset.inputs[i], reply, bundle.train_dataset.infos[i], {})).score;
}

describe("hf task types from files, with the catalogue's entries", () => {
  it("ARC-Challenge: {label, text} choices, answerKey; the prompt lists the options; label or option text scores", async () => {
    const bundle = await load("hf:arc_challenge", "allenai/ai2_arc/ARC-Challenge", [
      { id: "a1", question: "Which gas do plants take in?", choices: { text: ["Oxygen", "Carbon dioxide", "Helium"], label: ["A", "B", "C"] }, answerKey: "B" },
    ]);
    expect(bundle.train_dataset.inputs[0]).toBe("Question: Which gas do plants take in?\nOptions:\n(A) Oxygen\n(B) Carbon dioxide\n(C) Helium\nAnswer:");
    expect(await score(bundle, 0, "So the answer is (B).")).toBe(1);
    expect(await score(bundle, 0, "carbon dioxide")).toBe(1);
    expect(await score(bundle, 0, "(A)")).toBe(0);
    expect(bundle.guide.name).toBe("mcqa.MCQGuide");
  });

  it("QASC: its combined fact is the prompt's context", async () => {
    const bundle = await load("hf:qasc", "allenai/qasc/default", [
      { id: "q1", question: "What do magnets attract?", choices: { text: ["wood", "iron"], label: ["A", "B"] }, answerKey: "B", combinedfact: "Magnets attract iron." },
    ]);
    expect(bundle.train_dataset.inputs[0]).toBe("Context:\nMagnets attract iron.\n\nQuestion: What do magnets attract?\nOptions:\n(A) wood\n(B) iron\nAnswer:");
    expect(await score(bundle, 0, "B")).toBe(1);
  });

  it("QuALITY: a one-based answer index names the option; AQuA-RAT: options as a list of strings", async () => {
    const quality = await load("hf:quality", "emozilla/quality/default", [{ article: "A short tale.", question: "Who wins?", options: ["The fox", "The crow", "Nobody", "Both"], answer: 3 }]);
    expect(await score(quality, 0, "(C)")).toBe(1);
    expect(await score(quality, 0, "(A)")).toBe(0);
    const aqua = await load("hf:aqua_rat", "deepmind/aqua_rat/raw", [{ question: "2+2?", options: ["A)3", "B)4"], rationale: "2+2=4", correct: "B" }]);
    expect(aqua.train_dataset.inputs[0]).toBe("Question: 2+2?\nOptions:\n(A) A)3\n(B) B)4\nAnswer:");
    expect(await score(aqua, 0, "The answer is B")).toBe(1);
  });

  it("DROP: answers_spans aliases, containment or token F1", async () => {
    const bundle = await load("hf:drop", "ucinlp/drop/default", [
      { section_id: "d1", query_id: "q1", passage: "Ada kicked a 40-yard goal.", question: "Who kicked the goal?", answers_spans: { spans: ["Ada Lind"], types: ["span"] } },
    ]);
    expect(bundle.train_dataset.inputs[0]).toMatchObject({ question: "Who kicked the goal?", context: "Ada kicked a 40-yard goal.", answer: "Ada Lind" });
    expect(await score(bundle, 0, "It was Ada Lind.")).toBe(1);
    expect(await score(bundle, 0, "Ada")).toBeCloseTo(2 / 3, 12);
  });

  it("MuSiQue: numbered paragraphs, answer aliases", async () => {
    const bundle = await load("hf:musique", "dgslibisey/MuSiQue/default", [
      { id: "m1", paragraphs: [{ idx: 0, title: "Port Vell", paragraph_text: "Port Vell lies in Barcino.", is_supporting: true }], question: "Where is Port Vell?", answer: "Barcino", answer_aliases: ["Barcino City"], answerable: true },
    ]);
    expect(bundle.train_dataset.inputs[0]).toMatchObject({ context: "Paragraph 1 (Port Vell):\nPort Vell lies in Barcino.", answer: "Barcino" });
    expect(await score(bundle, 0, "barcino city")).toBe(1);
    expect(await score(bundle, 0, "Rome")).toBe(0);
  });

  it("Qasper (converted mirror): question and paper split out of the input", async () => {
    const bundle = await load("hf:qasper", "abertsch/converted_qasper/default", [{ id: "p", pid: "p_0", input: "Q: Which corpus is used?\nText: Methods\nWe use the Delta corpus.", output: "the Delta corpus" }]);
    expect(bundle.train_dataset.inputs[0]).toMatchObject({ question: "Which corpus is used?", context: "Methods\nWe use the Delta corpus.", answer: "the Delta corpus" });
    expect(await score(bundle, 0, "Delta corpus")).toBe(1);
  });

  it("GSM8K: the last number of the reply against the gold after ####, the trailing dot quirk kept", async () => {
    const bundle = await load("hf:gsm8k", "openai/gsm8k/main", [{ question: "3 * 4?", answer: "3 * 4 = 12\n#### 12" }]);
    expect(await score(bundle, 0, "so #### 12")).toBe(1);
    expect(await score(bundle, 0, "The answer is 12.")).toBe(0);
  });

  it("StrategyQA: the first yes/no token decides", async () => {
    const bundle = await load("hf:strategy_qa", "ChilleD/StrategyQA/default", [{ qid: "s", term: "Ice", description: "frozen water", question: "Is ice cold?", answer: true, facts: "Ice is frozen." }]);
    expect(await score(bundle, 0, "Yes, and no.")).toBe(1);
    expect(await score(bundle, 0, "No")).toBe(0);
  });

  it("HotpotQA: titles and sentences flattened; the gold contained in the reply scores 1", async () => {
    const bundle = await load("hf:hotpot_qa", "hotpotqa/hotpot_qa/distractor", [{ id: "h", question: "Which river?", answer: "the Quill", type: "bridge", level: "easy", context: { title: ["Q"], sentences: [["The Quill flows.", "It is long."]] } }]);
    expect(bundle.train_dataset.inputs[0]).toMatchObject({ context: "Paragraph 1 (Q):\nThe Quill flows. It is long." });
    expect(await score(bundle, 0, "It is the Quill river")).toBe(1);
    expect(await score(bundle, 0, "Brent")).toBe(0);
  });

  it("BBEH: a choice gold needs the last (X); a free-form gold the exact trimmed text", async () => {
    // A subtask's split is its name; BBEH has no config, so "default/" holds its splits.
    writeJsonl(join(data, "hubert233", "BigBenchExtraHard", "default", "hyperbaton.jsonl"), [
      { input: "Which order is right? (A) big red (B) red big", target: "(A)" },
      { input: "Count the vowels in 'tree'.", target: "2" },
    ]);
    const loaded = await suite.load("hf:bbeh/hyperbaton", { data_dir: data, num_train: 2, num_validate: 0, num_test: 0 });
    expect(await score(loaded, 0, "maybe (B), no: (A)")).toBe(1);
    expect(await score(loaded, 0, "A")).toBe(0);
    expect(await score(loaded, 1, " 2 ")).toBe(1);
    expect(await score(loaded, 1, "2.0")).toBe(0);
  });
});
