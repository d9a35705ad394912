/**
 * The VeriBench suite reading real files: discovery and ids from JSON Lines, Parquet and a hub
 * cache (names from `filename`, else `task_<i>`; the first row of a name wins), `veribench:all`,
 * the placeholder and its skip reason when there is no data, the original's bundle, the config's
 * `data`, and the translator agent answering through a scripted TaskLlm.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { staticSuite } from "../../../adapters/tasks/static-suite.js";
import { VERIBENCH_OBJECTIVE, VERIBENCH_PLACEHOLDER, VERIBENCH_UNAVAILABLE, VeribenchSuite } from "../../../adapters/tasks/veribench/veribench-suite.js";
import { TRANSLATOR_SYSTEM_PROMPT } from "../../../adapters/tasks/veribench/translator-agent.js";
import { initialValues } from "../../../src/domain/parameter.js";
import { TaskUnavailableError } from "../../../src/tasks/task-errors.js";
import { TaskRegistry } from "../../../src/tasks/task-registry.js";
import { scriptedTaskLlm } from "../../support/hf-datasets.js";
import { VERIBENCH_IDS, VERIBENCH_ROWS, writeVeribenchHubCache, writeVeribenchJsonl, writeVeribenchParquet } from "../../support/veribench-data.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "veribench-suite-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An environment that points at nothing of the user's (no real hub cache is read). */
const isolatedEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ HF_HUB_CACHE: join(dir, "no-hub-cache"), PATH: process.env.PATH ?? "", ...extra });

async function unavailable(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TaskUnavailableError);
  return (error as TaskUnavailableError).reason;
}

describe("veribench: no data on this machine", () => {
  it("lists only the placeholder; veribench:all stands for it; loading it is skipped with the original's reason and where data was looked for", async () => {
    const suite = new VeribenchSuite(isolatedEnv());
    expect(suite.list()).toEqual([VERIBENCH_PLACEHOLDER]);
    expect(suite.expand("veribench:all")).toEqual([VERIBENCH_PLACEHOLDER]);
    const reason = await unavailable(suite.load(VERIBENCH_PLACEHOLDER, {}));
    expect(reason.startsWith(`${VERIBENCH_UNAVAILABLE}; no VeriBench data on this machine`)).toBe(true);
    expect(reason).toContain(join(dir, "no-hub-cache"));
    expect(reason).toContain("TRACE_BENCH_VERIBENCH_DATA");
  });

  it("any named task is known and skipped (as the original, which cannot look it up)", async () => {
    const suite = new VeribenchSuite(isolatedEnv());
    expect(suite.knows("veribench:binary_search")).toBe(true);
    expect(await unavailable(suite.load("veribench:binary_search", {}))).toMatch(/^veribench_unavailable: no VeriBench data on this machine/);
  });

  it("a TRACE_BENCH_VERIBENCH_DATA that does not exist is the reason", async () => {
    const missing = join(dir, "nope.jsonl");
    const suite = new VeribenchSuite(isolatedEnv({ TRACE_BENCH_VERIBENCH_DATA: missing }));
    expect(suite.list()).toEqual([VERIBENCH_PLACEHOLDER]);
    expect(await unavailable(suite.load(VERIBENCH_PLACEHOLDER, {}))).toContain(`TRACE_BENCH_VERIBENCH_DATA: '${missing}' does not exist`);
  });

  it("a malformed JSONL file lists the placeholder, whose reason names the file and line", async () => {
    const file = join(dir, "bad.jsonl");
    writeFileSync(file, `${JSON.stringify(VERIBENCH_ROWS[0])}\n{not json\n`);
    const suite = new VeribenchSuite(isolatedEnv({ TRACE_BENCH_VERIBENCH_DATA: file }));
    expect(suite.list()).toEqual([VERIBENCH_PLACEHOLDER]);
    expect(await unavailable(suite.load(VERIBENCH_PLACEHOLDER, {}))).toContain(`${file}:2: not a JSON object`);
  });
});

describe("veribench: discovery from data", () => {
  it("JSONL: names are filenames without .py, a repeated name once, a row without filename task_<i>", () => {
    const suite = new VeribenchSuite(isolatedEnv({ TRACE_BENCH_VERIBENCH_DATA: writeVeribenchJsonl(join(dir, "rows.jsonl")) }));
    expect(suite.list()).toEqual(VERIBENCH_IDS);
    expect(suite.expand("veribench:all")).toEqual(VERIBENCH_IDS);
    expect(suite.expand("veribench:bubble_sort")).toBeNull();
    // Names, task_<i> and bare row numbers are known; anything else is not.
    for (const id of ["veribench:bubble_sort", "veribench:task_3", "veribench:4", "veribench:smoke_placeholder"]) expect(suite.knows(id), id).toBe(true);
    for (const id of ["veribench:quick_sort", "veribench:task_5", "veribench:99", "hf:gsm8k"]) expect(suite.knows(id), id).toBe(false);
  });

  it("Parquet file and hub cache list the same tasks (a blank filename names its row by index)", () => {
    const parquet = writeVeribenchParquet(join(dir, "rows.parquet"));
    expect(new VeribenchSuite(isolatedEnv({ TRACE_BENCH_VERIBENCH_DATA: parquet })).list()).toEqual(VERIBENCH_IDS);
    const hub = join(dir, "hub");
    writeVeribenchHubCache(hub);
    expect(new VeribenchSuite({ HF_HUB_CACHE: hub }).list()).toEqual(VERIBENCH_IDS);
    // A folder named by the variable is read as a hub cache too.
    expect(new VeribenchSuite(isolatedEnv({ TRACE_BENCH_VERIBENCH_DATA: hub })).list()).toEqual(VERIBENCH_IDS);
  });

  it("veribench:all expands in a config's task list, each task with its own copy of the eval_kwargs", () => {
    const suite = new VeribenchSuite(isolatedEnv({ TRACE_BENCH_VERIBENCH_DATA: writeVeribenchJsonl(join(dir, "rows.jsonl")) }));
    const internal = staticSuite("internal", { numeric_param: () => ({}) as never });
    const registry = new TaskRegistry([internal, suite]);
    const expanded = registry.expandTasks([
      { id: "veribench:all", eval_kwargs: { timeout_seconds: 7 } },
      { id: "internal:numeric_param", eval_kwargs: {} },
    ]);
    expect(expanded.map((t) => t.id)).toEqual([...VERIBENCH_IDS, "internal:numeric_param"]);
    for (const task of expanded.slice(0, 4)) expect(task.eval_kwargs).toEqual({ timeout_seconds: 7 });
    expect(expanded[0]!.eval_kwargs).not.toBe(expanded[1]!.eval_kwargs);
    expect(registry.unknownTask("veribench:quick_sort")).toContain("unknown task 'veribench:quick_sort'");
  });
});

describe("veribench: the bundle", () => {
  it("is the original's: trainable lean_code returned as the answer, the query as input, python_code and category as info, objective + query, memory_size 5", async () => {
    const suite = new VeribenchSuite(isolatedEnv({ TRACE_BENCH_VERIBENCH_DATA: writeVeribenchParquet(join(dir, "rows.parquet")) }));
    const bundle = await suite.load("veribench:bubble_sort", {});
    const first = VERIBENCH_ROWS[1]!;
    expect(bundle.parameters).toEqual([expect.objectContaining({ name: "lean_code", kind: "text", value: "-- placeholder: Lean 4 translation pending", trainable: true })]);
    expect(bundle.train_dataset).toEqual({ inputs: [first.user_query], infos: [{ python_code: first.code, category: "cs_set" }] });
    expect(bundle.optimizer_kwargs).toEqual({ objective: VERIBENCH_OBJECTIVE + first.user_query, memory_size: 5 });
    expect(bundle.metadata).toEqual({ benchmark: "veribench", entry: "VeriBenchAgent", task_name: "bubble_sort", category: "cs_set" });
    const values = initialValues(bundle.parameters);
    const answer = await bundle.agent.run(first.user_query, values, {});
    expect(answer).toBe("-- placeholder: Lean 4 translation pending");
    expect(await bundle.guide.evaluate(first.user_query, answer, bundle.train_dataset.infos[0], {})).toEqual({ score: 0, feedback: "lean_keywords=0; sorry_count=0; len=42" });
    expect(bundle.guide.name).toBe("trace_bench.veribench_adapter._VBGuide");
    // Mode stub's LLM writes no Lean: it proposes these hand-written texts, which the keyword guide scores apart.
    const offered = bundle.stubAlternatives!.lean_code!;
    expect(offered[0]).toBe("-- placeholder: Lean 4 translation pending");
    const scores = await Promise.all(offered.map(async (text) => (await bundle.guide.evaluate("", text, {}, {})).score));
    expect(new Set(scores).size).toBeGreaterThan(1);
  });

  it("task_<i> and a bare index load that row, even a repeated name's second row", async () => {
    const suite = new VeribenchSuite(isolatedEnv({ TRACE_BENCH_VERIBENCH_DATA: writeVeribenchJsonl(join(dir, "rows.jsonl")) }));
    const byIndex = await suite.load("veribench:task_3", {});
    expect(byIndex.train_dataset.infos).toEqual([{ python_code: VERIBENCH_ROWS[3]!.code, category: "duplicate" }]);
    expect((await suite.load("veribench:4", {})).metadata).toEqual({ benchmark: "veribench", entry: "VeriBenchAgent", task_name: "4", category: "math" });
  });

  it("the objective holds the first 800 code points of the query, or of the code when the query is empty", async () => {
    const long = `${"𝔽".repeat(10)}${"q".repeat(1000)}`;
    const file = writeVeribenchJsonl(join(dir, "rows.jsonl"), [
      { filename: "long.py", code: "def f(): pass", user_query: long, category: "x" },
      { filename: "codeonly.py", code: "c".repeat(900), user_query: "", category: "x" },
    ]);
    const suite = new VeribenchSuite(isolatedEnv({ TRACE_BENCH_VERIBENCH_DATA: file }));
    expect((await suite.load("veribench:long", {})).optimizer_kwargs).toEqual({ objective: VERIBENCH_OBJECTIVE + "𝔽".repeat(10) + "q".repeat(790), memory_size: 5 });
    const codeOnly = await suite.load("veribench:codeonly", {});
    expect(codeOnly.optimizer_kwargs).toEqual({ objective: VERIBENCH_OBJECTIVE + "c".repeat(800), memory_size: 5 });
    expect(codeOnly.train_dataset.inputs).toEqual(["c".repeat(900)]);
  });

  it("eval_kwargs.data loads from the config's file when no data was discovered", async () => {
    const suite = new VeribenchSuite(isolatedEnv());
    const data = writeVeribenchJsonl(join(dir, "config-rows.jsonl"));
    const bundle = await suite.load("veribench:insertion_sort", { data });
    expect(bundle.metadata).toEqual(expect.objectContaining({ task_name: "insertion_sort" }));
    expect(await unavailable(suite.load("veribench:quick_sort", { data }))).toBe("veribench_unavailable: task 'quick_sort' not found in dataset (5 tasks available)");
    expect(await unavailable(suite.load("veribench:quick_sort", { data: join(dir, "rows.csv") }))).toContain("eval_kwargs.data: ");
  });

  it("a bad agent, guide or timeout in eval_kwargs is a one-line error naming the key", async () => {
    const suite = new VeribenchSuite(isolatedEnv({ TRACE_BENCH_VERIBENCH_DATA: writeVeribenchJsonl(join(dir, "rows.jsonl")) }));
    await expect(suite.load("veribench:bubble_sort", { agent: "robot" })).rejects.toThrow('eval_kwargs.agent must be one of direct, translator, got "robot"');
    await expect(suite.load("veribench:bubble_sort", { guide: "judge" })).rejects.toThrow('eval_kwargs.guide must be one of keyword, lean, got "judge"');
    await expect(suite.load("veribench:bubble_sort", { timeout_seconds: -1 })).rejects.toThrow("eval_kwargs.timeout_seconds must be a positive number of seconds, got -1");
  });

  it("guide: lean without a Lean toolchain on PATH is skipped, saying how to install Lean", async () => {
    const suite = new VeribenchSuite(isolatedEnv({ TRACE_BENCH_VERIBENCH_DATA: writeVeribenchJsonl(join(dir, "rows.jsonl")), PATH: join(dir, "empty-bin") }));
    const reason = await unavailable(suite.load("veribench:bubble_sort", { guide: "lean" }));
    expect(reason).toContain("neither 'lean' nor 'lake' is on PATH");
    expect(reason).toContain("elan");
  });
});

describe("veribench: the translator agent", () => {
  it("asks the LLM (role agent) with the system prompt and the trainable instructions, and answers the reply's first lean block", async () => {
    const suite = new VeribenchSuite(isolatedEnv({ TRACE_BENCH_VERIBENCH_DATA: writeVeribenchJsonl(join(dir, "rows.jsonl")) }));
    const bundle = await suite.load("veribench:binary_search", { agent: "translator" });
    expect(bundle.parameters.map((p) => [p.name, p.kind, p.trainable])).toEqual([["additional_instructions", "text", true]]);
    expect(bundle.metadata.entry).toBe("VeriBenchTranslatorAgent");
    const llm = scriptedTaskLlm(() => "Here it is:\n```lean\ndef search (xs : List Nat) (t : Nat) : Int := -1\n```\n```lean\n-- second block\n```");
    const input = bundle.train_dataset.inputs[0];
    const answer = await bundle.agent.run(input, { additional_instructions: "Use Int for indexes." }, { llm });
    expect(answer).toBe("def search (xs : List Nat) (t : Nat) : Int := -1");
    expect(llm.requests).toEqual([
      {
        role: "agent",
        maxTokens: 8192,
        messages: [
          { role: "system", content: `${TRANSLATOR_SYSTEM_PROMPT}\n\nAdditional instructions:\nUse Int for indexes.` },
          { role: "user", content: VERIBENCH_ROWS[0]!.user_query },
        ],
      },
    ]);
    // A reply without a fence is the answer as it is.
    const plain = scriptedTaskLlm(() => "  theorem t : True := trivial  ");
    expect(await bundle.agent.run(input, { additional_instructions: "" }, { llm: plain })).toBe("theorem t : True := trivial");
    await expect(Promise.resolve().then(() => bundle.agent.run(input, { additional_instructions: "" }, {}))).rejects.toThrow("context.llm is missing");
  });
});
