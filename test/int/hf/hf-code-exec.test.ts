/**
 * HumanEval/MBPP: the code agent's reply is run with the dataset's unit tests in the python
 * worker pool (the real sandbox), never in the engine; pass, a failing assert with its line, a
 * crash, an empty reply and a candidate that never ends (stopped at the entry's 10 s).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractCode } from "../../../adapters/tasks/hf/code-exec.js";
import { HfSuite } from "../../../adapters/tasks/hf/hf-suite.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { initialValues } from "../../../src/domain/parameter.js";
import { scoreDataset } from "../../../src/tasks/score-dataset.js";
import { scriptedTaskLlm, writeJsonl } from "../../support/hf-datasets.js";

let data: string;
let suite: HfSuite;
beforeAll(() => {
  data = mkdtempSync(join(tmpdir(), "hf-code-"));
  suite = new HfSuite({ HF_HUB_CACHE: join(data, "no-hub") });
});
afterAll(() => {
  suite.close();
  rmSync(data, { recursive: true, force: true });
});

const HUMANEVAL_ROWS = [
  {
    task_id: "Made/0",
    prompt: 'def add_two(x):\n    """Return x plus two."""\n',
    canonical_solution: "    return x + 2\n",
    test: "def check(candidate):\n    assert candidate(1) == 3\n    assert candidate(-2) == 0\n",
    entry_point: "add_two",
  },
];

async function humaneval(): Promise<TaskBundle> {
  writeJsonl(join(data, "openai", "openai_humaneval", "default", "test.jsonl"), HUMANEVAL_ROWS);
  return suite.load("hf:humaneval", { data_dir: data, num_train: 1, num_validate: 0, num_test: 0 });
}

async function scoreReply(bundle: TaskBundle, reply: string) {
  return bundle.guide.evaluate(bundle.train_dataset.inputs[0], reply, bundle.train_dataset.infos[0], {});
}

describe("hf code tasks: unit tests in the python worker pool", () => {
  it("unwraps the first fenced block as the original does", () => {
    expect(extractCode("Here:\n```python\ndef f():\n    return 1\n```\nDone")).toBe("def f():\n    return 1\n");
    expect(extractCode("```\nx = 1\n```")).toBe("x = 1\n");
    expect(extractCode("def f(): pass")).toBe("def f(): pass");
  });

  it("the code agent asks through context.llm, and a passing candidate scores 1", async () => {
    const bundle = await humaneval();
    expect(bundle.parameters.map((p) => p.name)).toEqual(["prompt_template"]);
    const llm = scriptedTaskLlm(() => "```python\ndef add_two(x):\n    return x + 2\n```");
    const result = await scoreDataset(bundle, initialValues(bundle.parameters), { name: "train_dataset", dataset: bundle.train_dataset }, { llm });
    expect(result.exampleScores).toEqual([1]);
    expect(llm.requests[0]!.messages[1]).toEqual({ role: "user", content: HUMANEVAL_ROWS[0]!.prompt });
  });

  it("a failing assertion scores 0 and names the exception and the failing line", async () => {
    const result = await scoreReply(await humaneval(), "def add_two(x):\n    return x + 3\n");
    expect(result.score).toBe(0);
    expect(result.feedback).toBe("The implementation fails: AssertionError:  at: assert candidate(1) == 3. Revise the function so this specific failure is resolved while keeping all other cases correct.");
  });

  it("a crash and an empty reply score 0 with their reasons", async () => {
    const bundle = await humaneval();
    const crash = await scoreReply(bundle, "def add_two(x):\n    return x + undefined_name\n");
    expect(crash.score).toBe(0);
    expect(crash.feedback).toContain("NameError: name 'undefined_name' is not defined");
    expect(await scoreReply(bundle, "   ")).toEqual({ score: 0, feedback: "Empty code response; produce a complete function definition." });
  });

  it("MBPP: assert lists joined, setup code run first", async () => {
    writeJsonl(join(data, "google-research-datasets", "mbpp", "sanitized", "train.jsonl"), [
      { task_id: 1, prompt: "Write a function to double a number.", code: "def double(n): return 2*n", test_imports: [], test_list: ["assert double(2) == 4", "assert double(HALF) == 1"], test_setup_code: "HALF = 0.5" },
    ]);
    const bundle = await suite.load("hf:mbpp", { data_dir: data, num_train: 1, num_validate: 0, num_test: 0 });
    expect(await scoreReply(bundle, "def double(n):\n    return 2 * n\n")).toMatchObject({ score: 1 });
    expect(await scoreReply(bundle, "def double(n):\n    return n\n")).toMatchObject({ score: 0 });
  });

  it("a candidate that never ends is stopped at the entry's timeout and scores 0", async () => {
    const result = await scoreReply(await humaneval(), "def add_two(x):\n    while True:\n        pass\n");
    expect(result).toEqual({
      score: 0,
      feedback: "The implementation fails: timed out after 10s — the function likely has an infinite loop or is far too slow; ensure it terminates. Revise the function so this specific failure is resolved while keeping all other cases correct.",
    });
  }, 60_000);
});
