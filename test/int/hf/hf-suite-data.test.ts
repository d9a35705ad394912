/**
 * The hf suite reading real files: a data directory of JSON Lines and Parquet, a HuggingFace hub
 * cache laid out as huggingface_hub leaves it, the disjoint train/validate/test slices, and the
 * `skipped` reason of a dataset that is not there. Agents answer through a scripted TaskLlm.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HfSuite } from "../../../adapters/tasks/hf/hf-suite.js";
import type { HfExample } from "../../../adapters/tasks/hf/hf-example.js";
import { HF_TASK_ENTRIES } from "../../../adapters/tasks/hf/hf-task-entries.js";
import { TaskUnavailableError } from "../../../src/tasks/task-errors.js";
import { scoreDataset } from "../../../src/tasks/score-dataset.js";
import { initialValues } from "../../../src/domain/parameter.js";
import {
  DYCK_ROWS,
  GSM8K_TEST,
  GSM8K_TRAIN,
  HOTPOT_TRAIN,
  HOTPOT_VALIDATION,
  STRATEGY_TRAIN,
  scriptedTaskLlm,
  writeHubCacheFile,
  writeJsonl,
  writeParquetFile,
} from "../../support/hf-datasets.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hf-suite-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An environment that points at nothing of the user's (no real hub cache is read). */
const isolatedEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ HF_HUB_CACHE: join(dir, "no-hub-cache"), ...extra });

describe("hf suite: a data directory", () => {
  it("reads JSON Lines at <data_dir>/<org>/<name>/<config>/<split>.jsonl, train and validate as consecutive disjoint slices of the train split", async () => {
    const data = join(dir, "data");
    writeJsonl(join(data, "openai", "gsm8k", "main", "train.jsonl"), GSM8K_TRAIN);
    writeJsonl(join(data, "openai", "gsm8k", "main", "test.jsonl"), GSM8K_TEST);
    const bundle = await new HfSuite(isolatedEnv()).load("hf:gsm8k", { data_dir: data, num_train: 2, num_validate: 2, num_test: 1 });
    expect(bundle.train_dataset.inputs).toEqual([GSM8K_TRAIN[0]!.question, GSM8K_TRAIN[1]!.question]);
    expect(bundle.validate_dataset!.inputs).toEqual([GSM8K_TRAIN[2]!.question, GSM8K_TRAIN[3]!.question]);
    expect(bundle.test_dataset!.inputs).toEqual([GSM8K_TEST[0]!.question]);
    expect((bundle.train_dataset.infos as HfExample[]).map((e) => e.answer)).toEqual(["12", "10"]);
    expect(bundle.optimizer_kwargs).toEqual({ objective: HF_TASK_ENTRIES.find((e) => e.id === "gsm8k")!.objective, memory_size: 10 });
    expect(bundle.metadata).toEqual({
      benchmark: "hf",
      task_id: "gsm8k",
      subtask: null,
      dataset_id: "openai/gsm8k",
      task_type: "gsm8k",
      dataset_config: "main",
      num_train: 2,
      num_validate: 2,
      num_test: 1,
      train_split: "train",
      validate_split: "train",
      test_split: "test",
      framework: "trace",
    });
    expect(bundle.guide.name).toBe("gsm8k.GSM8KGuide");
  });

  it("takes the data directory from TRACE_BENCH_HF_DATA_DIR when eval_kwargs name none, and leaves out empty partitions", async () => {
    const data = join(dir, "env-data");
    writeJsonl(join(data, "openai", "gsm8k", "main", "train.jsonl"), GSM8K_TRAIN);
    const bundle = await new HfSuite(isolatedEnv({ TRACE_BENCH_HF_DATA_DIR: data })).load("hf:gsm8k", { num_train: 3, num_validate: 0, num_test: 0 });
    expect(bundle.train_dataset.inputs).toHaveLength(3);
    expect(bundle.validate_dataset).toBeUndefined();
    expect(bundle.test_dataset).toBeUndefined();
  });

  it("reads a Parquet split (strings and booleans) and shapes StrategyQA's boolean answers", async () => {
    const data = join(dir, "data");
    const columns = (rows: typeof STRATEGY_TRAIN) => [
      { name: "qid", type: "string" as const, values: rows.map((r) => r.qid) },
      { name: "question", type: "string" as const, values: rows.map((r) => r.question) },
      { name: "answer", type: "boolean" as const, values: rows.map((r) => r.answer) },
    ];
    writeParquetFile(join(data, "ChilleD", "StrategyQA", "default", "train.parquet"), columns(STRATEGY_TRAIN));
    writeParquetFile(join(data, "ChilleD", "StrategyQA", "default", "test.parquet"), columns(STRATEGY_TRAIN.slice(0, 1)));
    const bundle = await new HfSuite(isolatedEnv()).load("hf:strategy_qa", { data_dir: data, num_train: 2, num_validate: 1, num_test: 1 });
    expect((bundle.train_dataset.infos as HfExample[]).map((e) => e.answer)).toEqual(["no", "yes"]);
    expect((bundle.validate_dataset!.infos as HfExample[]).map((e) => e.answer)).toEqual(["no"]);
    expect(bundle.train_dataset.inputs[0]).toBe("Question: Could a goldfish ride a bicycle?\nAnswer with exactly 'Yes' or 'No'.\nAnswer:");
  });

  it("a split that is not there skips the job, naming the dataset, the split and every place looked", async () => {
    const data = join(dir, "data");
    writeJsonl(join(data, "openai", "gsm8k", "main", "train.jsonl"), GSM8K_TRAIN);
    const error = await new HfSuite(isolatedEnv()).load("hf:gsm8k", { data_dir: data, num_train: 1, num_validate: 0, num_test: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskUnavailableError);
    const reason = (error as TaskUnavailableError).reason;
    expect(reason).toContain("openai/gsm8k");
    expect(reason).toContain("split 'test'");
    expect(reason).toContain(join(data, "openai", "gsm8k", "main", "test.jsonl"));
    expect(reason).toContain(join(data, "openai", "gsm8k", "main", "test.parquet"));
    expect(reason).toContain(join(dir, "no-hub-cache", "datasets--openai--gsm8k", "snapshots"));
  });

  it("a malformed line fails the job with the file and line, not a skip", async () => {
    const data = join(dir, "data");
    writeJsonl(join(data, "openai", "gsm8k", "main", "train.jsonl"), GSM8K_TRAIN);
    const { appendFileSync } = await import("node:fs");
    appendFileSync(join(data, "openai", "gsm8k", "main", "train.jsonl"), "{not json\n");
    const error = await new HfSuite(isolatedEnv()).load("hf:gsm8k", { data_dir: data, num_train: 6, num_validate: 0, num_test: 0 }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(TaskUnavailableError);
    expect((error as Error).message).toContain("train.jsonl:6");
  });
});

describe("hf suite: the HuggingFace hub cache", () => {
  const dyckColumns = (rows: typeof DYCK_ROWS) => [
    { name: "input", type: "string" as const, values: rows.map((r) => r.input) },
    { name: "target", type: "string" as const, values: rows.map((r) => r.target) },
  ];

  it("reads a subtask's split from the snapshot refs/main names, train/validate/test disjoint slices of that one split", async () => {
    const hub = join(dir, "hub");
    writeHubCacheFile(hub, "hubert233/BigBenchExtraHard", "0ldrev", "data/dyck_languages-00000-of-00001.parquet", (p) => writeParquetFile(p, dyckColumns(DYCK_ROWS.slice().reverse())), false);
    writeHubCacheFile(hub, "hubert233/BigBenchExtraHard", "c0ffee", "data/dyck_languages-00000-of-00001.parquet", (p) => writeParquetFile(p, dyckColumns(DYCK_ROWS)));
    writeHubCacheFile(hub, "hubert233/BigBenchExtraHard", "c0ffee", "data/boolean_expressions-00000-of-00001.parquet", (p) => writeParquetFile(p, dyckColumns([{ input: "True and False", target: "False" }])));
    const bundle = await new HfSuite({ HF_HUB_CACHE: hub }).load("hf:bbeh_eight/dyck_languages", { num_train: 2, num_validate: 1, num_test: 1 });
    expect(bundle.train_dataset).toEqual({ inputs: [DYCK_ROWS[0]!.input, DYCK_ROWS[1]!.input], infos: [DYCK_ROWS[0]!.target, DYCK_ROWS[1]!.target] });
    expect(bundle.validate_dataset).toEqual({ inputs: [DYCK_ROWS[2]!.input], infos: [DYCK_ROWS[2]!.target] });
    expect(bundle.test_dataset).toEqual({ inputs: [DYCK_ROWS[3]!.input], infos: [DYCK_ROWS[3]!.target] });
    expect(bundle.metadata).toMatchObject({ task_id: "bbeh_eight", subtask: "dyck_languages", train_split: "dyck_languages", test_split: "dyck_languages", task_type: "bbeh" });
    expect(bundle.parameters.map((p) => p.name)).toEqual(["prompt_template", "__code"]);
  });

  it("finds the cache under HF_HOME/hub, and a config's shards under <config>/", async () => {
    const home = join(dir, "hf-home");
    const rows = (list: typeof GSM8K_TRAIN) => [
      { name: "question", type: "string" as const, values: list.map((r) => r.question) },
      { name: "answer", type: "string" as const, values: list.map((r) => r.answer) },
    ];
    writeHubCacheFile(join(home, "hub"), "openai/gsm8k", "abc123", "socratic/train-00000-of-00001.parquet", (p) => writeParquetFile(p, rows(GSM8K_TEST)));
    writeHubCacheFile(join(home, "hub"), "openai/gsm8k", "abc123", "main/train-00000-of-00001.parquet", (p) => writeParquetFile(p, rows(GSM8K_TRAIN)));
    writeHubCacheFile(join(home, "hub"), "openai/gsm8k", "abc123", "main/test-00000-of-00001.parquet", (p) => writeParquetFile(p, rows(GSM8K_TEST)));
    const bundle = await new HfSuite({ HF_HOME: home }).load("hf:gsm8k", { num_train: 5, num_validate: 0, num_test: 1 });
    expect(bundle.train_dataset.inputs).toEqual(GSM8K_TRAIN.map((r) => r.question));
    expect(bundle.test_dataset!.inputs).toEqual([GSM8K_TEST[0]!.question]);
  });
});

describe("hf suite: agents through context.llm", () => {
  const suites: HfSuite[] = [];
  afterEach(() => {
    for (const suite of suites.splice(0)) suite.close();
  });

  /** hf:bbeh/dyck_languages from a hub cache, two train examples. */
  async function bbehBundle() {
    const hub = join(dir, "hub");
    writeHubCacheFile(hub, "hubert233/BigBenchExtraHard", "r1", "data/dyck_languages-00000-of-00001.parquet", (p) =>
      writeParquetFile(p, [
        { name: "input", type: "string", values: DYCK_ROWS.map((r) => r.input) },
        { name: "target", type: "string", values: DYCK_ROWS.map((r) => r.target) },
      ]),
    );
    const suite = new HfSuite({ HF_HUB_CACHE: hub });
    suites.push(suite);
    return suite.load("hf:bbeh/dyck_languages", { num_train: 2, num_validate: 0, num_test: 0 });
  }

  it("the HotpotQA agent sends meta_instructions, the flattened context and the question as one user message, role agent", async () => {
    const data = join(dir, "data");
    writeJsonl(join(data, "hotpotqa", "hotpot_qa", "distractor", "train.jsonl"), HOTPOT_TRAIN);
    writeJsonl(join(data, "hotpotqa", "hotpot_qa", "distractor", "validation.jsonl"), HOTPOT_VALIDATION);
    const bundle = await new HfSuite(isolatedEnv()).load("hf:hotpot_qa", { data_dir: data, num_train: 2, num_validate: 0, num_test: 1 });
    const llm = scriptedTaskLlm((_r, i) => ["It is Valdora.", "No."][i] ?? "");
    const score = await scoreDataset(bundle, initialValues(bundle.parameters), { name: "train_dataset", dataset: bundle.train_dataset }, { llm });
    expect(score.exampleScores).toEqual([1, 0]);
    expect(llm.requests[0]).toEqual({
      role: "agent",
      messages: [
        {
          role: "user",
          content:
            "Answer the question based on the context.\n\nContext:\nParagraph 1 (Lena Ortiz):\nLena Ortiz is an architect. She designed the Harbor Museum.\n\nParagraph 2 (Harbor Museum):\nThe Harbor Museum stands in Valdora.\n\nQuestion: Which city is the home of the museum designed by Lena Ortiz?\n\nAnswer:",
        },
      ],
    });
    expect(bundle.parameters).toEqual([expect.objectContaining({ name: "meta_instructions", kind: "text", trainable: true, value: "Answer the question based on the context." })]);
  });

  it("the BBEH agent sends prompt_template as the system message and its Python extract_answer (run in the worker pool) keeps what follows the last 'Answer:'", async () => {
    const bundle = await bbehBundle();
    const llm = scriptedTaskLlm((_r, i) => ["Thinking... Answer: maybe\nAnswer:  ] ) ", "Answer: ) ]"][i] ?? "");
    const values = { ...initialValues(bundle.parameters), prompt_template: "Close the brackets." };
    const score = await scoreDataset(bundle, values, { name: "train_dataset", dataset: bundle.train_dataset }, { llm });
    expect(score.exampleScores).toEqual([1, 0]);
    expect(llm.requests[0]!.messages).toEqual([
      { role: "system", content: "Close the brackets." },
      { role: "user", content: DYCK_ROWS[0]!.input },
    ]);
    expect(llm.requests.every((r) => r.role === "agent")).toBe(true);
  }, 60_000);

  it("a rewritten extract_answer is what runs; one that raises fails the example with its exception and line", async () => {
    const bundle = await bbehBundle();
    const llm = scriptedTaskLlm(() => "reasoning...\nFINAL: ) ]\n");
    const rewritten = 'def extract_answer(self, prompt_template, question, response):\n    return response.split("FINAL:")[-1].strip()[::-1].replace(") ]", "] )")\n';
    const ok = await scoreDataset(bundle, { ...initialValues(bundle.parameters), __code: rewritten }, { name: "train_dataset", dataset: bundle.train_dataset }, { llm });
    expect(ok.exampleScores[0]).toBe(1);
    const raising = 'def extract_answer(self, prompt_template, question, response):\n    return response["answer"]\n';
    const failed = await scoreDataset(bundle, { ...initialValues(bundle.parameters), __code: raising }, { name: "train_dataset", dataset: bundle.train_dataset }, { llm });
    expect(failed.score).toBeNull();
    expect(failed.feedback).toContain("extract_answer failed: TypeError: string indices must be integers");
    expect(failed.feedback).toContain('at: return response["answer"]');
  }, 60_000);

  it("an agent without context.llm fails its example with a reason, never calling a model of its own", async () => {
    const data = join(dir, "data");
    writeJsonl(join(data, "openai", "gsm8k", "main", "train.jsonl"), GSM8K_TRAIN);
    const bundle = await new HfSuite(isolatedEnv()).load("hf:gsm8k", { data_dir: data, num_train: 1, num_validate: 0, num_test: 0 });
    const score = await scoreDataset(bundle, initialValues(bundle.parameters), { name: "train_dataset", dataset: bundle.train_dataset }, {});
    expect(score.score).toBeNull();
    expect(score.feedback).toContain("context.llm is missing");
  });
});

describe("hf suite: what it refuses", () => {
  it("skips framework dspy with its reason, and refuses bad sizes with the key", async () => {
    const suite = new HfSuite(isolatedEnv());
    await expect(suite.load("hf:hotpot_qa", { framework: "dspy" })).rejects.toThrow(/framework dspy builds a DSPy agent in Python's dspy/);
    await expect(suite.load("hf:gsm8k", { num_train: -1 })).rejects.toThrow("eval_kwargs.num_train must be a non-negative integer, got -1");
    await expect(suite.load("hf:gsm8k", { num_train: true })).rejects.toThrow("eval_kwargs.num_train");
    await expect(suite.load("hf:bbeh", {})).rejects.toThrow(/stands for its 23 subtasks/);
  });
});
