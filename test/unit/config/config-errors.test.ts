/**
 * Bad configs throw `ConfigError` whose `problems` are one line each:
 * `<file>[:<line>]: <key path>: expected <what>, found <what>` (or a similar one-line explanation).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config/config-error.js";
import { parseConfigText } from "../../../src/config/config-file.js";
import { expandMatrix } from "../../../src/config/matrix.js";
import { loadRunConfig, resolveRunConfig } from "../../../src/config/run-config.js";

/** Runs `fn`, asserts it throws a ConfigError, and returns its problems. */
function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.length).toBeGreaterThan(0);
    for (const line of problems) expect(line).not.toContain("\n");
    expect((error as ConfigError).message).toBe(problems.join("\n"));
    return problems;
  }
  throw new Error("expected a ConfigError, but nothing was thrown");
}

const problems = (text: string, path = "bad.yaml") => problemsOf(() => resolveRunConfig(parseConfigText(path, text)));
const TASK = "tasks: [internal:numeric_param]\n";

const tmp = mkdtempSync(join(tmpdir(), "trace-bench-config-errors-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("entries without an id", () => {
  it("a task mapping without id/key/task", () => {
    const [line, ...rest] = problems("tasks:\n  - internal:numeric_param\n  - eval_kwargs: {a: 1}\n");
    expect(rest).toEqual([]);
    expect(line).toMatch(/^bad\.yaml:3: tasks\[1\]: /);
    expect(line).toContain("no id");
    expect(line).toContain("id:");
  });

  it("a task mapping with an empty id", () => {
    expect(problems("tasks:\n  - id: ''\n")[0]).toMatch(/^bad\.yaml:2: tasks\[0\]: .*no id/);
  });

  it("a trainer mapping without id/name/trainer/key", () => {
    const [line] = problems(`${TASK}trainers:\n  - PrioritySearch\n  - params: {ps_steps: 1}\n`);
    expect(line).toMatch(/^bad\.yaml:4: trainers\[1\]: /);
    expect(line).toContain("no id");
  });
});

describe("wrong types and values", () => {
  it('ps_steps: "two" inside a params variant names the full key path and line', () => {
    const text = [
      "tasks: [internal:numeric_param]", // 1
      "trainers:", //                      2
      "  - PrioritySearch", //             3
      "  - id: PrioritySearch", //         4
      "    params_variants:", //           5
      "      - ps_steps: two", //          6
    ].join("\n");
    expect(problems(text)).toEqual(['bad.yaml:6: trainers[1].params_variants[0].ps_steps: expected a whole number ≥ 0, or null, found "two"']);
  });

  it("a negative legacy knob at the top level", () => {
    expect(problems(`${TASK}ps-steps: -1\n`)).toEqual(["bad.yaml:2: ps-steps: expected a whole number ≥ 0, or null, found -1"]);
  });

  it("bad resume mode", () => {
    expect(problems(`${TASK}resume: sometimes\n`)).toEqual(['bad.yaml:2: resume: expected one of auto, failed, none, found "sometimes"']);
  });

  it("bad mode", () => {
    expect(problems(`${TASK}mode: fake\n`)).toEqual(['bad.yaml:2: mode: expected "stub" or "real", found "fake"']);
  });

  it("max_workers 0, a fraction, null; n_concurrent 0", () => {
    expect(problems(`${TASK}max_workers: 0\n`)).toEqual(["bad.yaml:2: max_workers: expected a whole number ≥ 1, found 0"]);
    expect(problems(`${TASK}max_workers: 1.5\n`)).toEqual(["bad.yaml:2: max_workers: expected a whole number ≥ 1, found 1.5"]);
    expect(problems(`${TASK}max_workers: null\n`)).toEqual(["bad.yaml:2: max_workers: expected a whole number ≥ 1, found null"]);
    expect(problems(`${TASK}n_concurrent: 0\n`)).toEqual(["bad.yaml:2: n_concurrent: expected a whole number ≥ 1, found 0"]);
  });

  it("negative job_timeout / job-timeout, and a PyYAML non-float like 1e3", () => {
    expect(problems(`${TASK}job_timeout: -1\n`)).toEqual(["bad.yaml:2: job_timeout: expected a number of seconds from 0 to 2147483 (about 24 days; 0 = none), or null, found -1"]);
    expect(problems(`${TASK}job-timeout: -0.5\n`)).toEqual(["bad.yaml:2: job-timeout: expected a number of seconds from 0 to 2147483 (about 24 days; 0 = none), or null, found -0.5"]);
    expect(problems(`${TASK}job_timeout: 1e3\n`)).toEqual(['bad.yaml:2: job_timeout: expected a number of seconds from 0 to 2147483 (about 24 days; 0 = none), or null, found "1e3"']);
  });

  it("fail_fast must be a boolean", () => {
    expect(problems(`${TASK}fail_fast: maybe\n`)).toEqual(['bad.yaml:2: fail_fast: expected true or false, found "maybe"']);
  });

  it("a YAML 1.1 boolean where a string is expected (name: no)", () => {
    expect(problems(`${TASK}trainers:\n  - name: no\n`)).toEqual(["bad.yaml:3: trainers[0].name: expected a string, found false"]);
  });

  it("eval_kwargs not a mapping (top level and in a task)", () => {
    expect(problems(`${TASK}eval_kwargs: [1, 2]\n`)).toEqual(["bad.yaml:2: eval_kwargs: expected a mapping of keyword arguments, or null, found a list"]);
    const [line] = problems("tasks:\n  - id: a:b\n    eval_kwargs: fast\n");
    expect(line).toBe('bad.yaml:3: tasks[0].eval_kwargs: expected a mapping of keyword arguments, or null, found "fast"');
  });

  it("params_variants not a list", () => {
    const [line] = problems(`${TASK}trainers:\n  - id: A\n    params_variants: {ps_steps: 1}\n`);
    expect(line).toMatch(/^bad\.yaml:4: trainers\[0\]\.params_variants: expected a list of mappings.*, found a mapping$/);
  });

  it("a task entry that is neither a string nor a mapping", () => {
    const [line] = problems("tasks: [1]\n");
    expect(line).toMatch(/^bad\.yaml:1: tasks\[0\]: expected a task id .*, found 1$/);
  });

  it("reports every shape problem at once, each on its own line", () => {
    const lines = problems(`${TASK}resume: sometimes\nmode: fake\nmax_workers: 0\njob_timeout: -1\n`);
    expect([...lines].sort()).toEqual(
      [
        'bad.yaml:2: resume: expected one of auto, failed, none, found "sometimes"',
        'bad.yaml:3: mode: expected "stub" or "real", found "fake"',
        "bad.yaml:4: max_workers: expected a whole number ≥ 1, found 0",
        "bad.yaml:5: job_timeout: expected a number of seconds from 0 to 2147483 (about 24 days; 0 = none), or null, found -1",
      ].sort(),
    );
  });
});

describe("tasks", () => {
  it("empty tasks list", () => {
    const [line] = problems("tasks: []\n");
    expect(line).toMatch(/^bad\.yaml:1: tasks: /);
    expect(line).toContain("no tasks");
  });

  it("missing tasks key", () => {
    const [line] = problems("seeds: [1]\n");
    expect(line).toMatch(/^bad\.yaml(:\d+)?: tasks: /);
    expect(line).toContain("no tasks");
  });

  it("tasks not a list", () => {
    expect(problems("tasks: internal:numeric_param\n")).toEqual(['bad.yaml:1: tasks: expected a list of tasks, found "internal:numeric_param"']);
  });
});

describe("document shape and files", () => {
  it("top level is a list", () => {
    const [line] = problems("- tasks: [a]\n");
    expect(line).toMatch(/^bad\.yaml: /);
    expect(line).toContain("mapping");
    expect(line).toContain("found a list");
  });

  it("top level is a scalar", () => {
    expect(problems("42\n")[0]).toMatch(/^bad\.yaml: .*mapping.*found 42$/);
  });

  it("a missing file", () => {
    const path = join(tmp, "does-not-exist.yaml");
    const [line] = problemsOf(() => loadRunConfig(path));
    expect(line).toContain(path);
    expect(line).toContain("no such file");
  });

  it("a directory instead of a file", () => {
    const [line] = problemsOf(() => loadRunConfig(tmp));
    expect(line).toContain(tmp);
    expect(line).toContain("directory");
  });

  it("a YAML syntax error names the file and the line", () => {
    const text = [
      "tasks: [internal:numeric_param]", // 1
      "seeds: [1, 2]", //                   2
      "trainers: {id: A", //                3 (unterminated flow mapping)
      "mode: stub", //                      4
    ].join("\n");
    const [line] = problems(text);
    expect(line).toContain("invalid YAML");
    expect(line).toMatch(/^bad\.yaml:[34](:\d+)?: /);
  });

  it("a YAML syntax error (bad indentation) names the line", () => {
    const text = ["tasks:", "  - id: a:b", "   eval_kwargs: {}", "seeds: [1]"].join("\n");
    const [line] = problems(text);
    expect(line).toMatch(/^bad\.yaml:3(:\d+)?: invalid YAML/);
  });

  it("broken JSON is reported as a parse error, not a crash", () => {
    const [line] = problems('{"tasks": ["x"], ', "bad.json");
    expect(line).toMatch(/^bad\.json(:\d+)*: invalid YAML/);
  });
});

describe("seeds", () => {
  it("duplicate seeds name the index of the repeat", () => {
    const [line] = problems(`${TASK}seeds: [1, 2, 1]\n`);
    expect(line).toMatch(/^bad\.yaml:2: seeds\[2\]: /);
    expect(line).toContain("seed 1");
    expect(line).toContain("twice");
  });

  it("seed: null", () => {
    expect(problems(`${TASK}seed: null\n`)).toEqual(["bad.yaml:2: seed: expected a whole number, found null"]);
  });

  it("a null or fractional seed in the list", () => {
    expect(problems(`${TASK}seeds: [1, null]\n`)).toEqual(["bad.yaml:2: seeds[1]: expected a whole number, found null"]);
    expect(problems(`${TASK}seeds: [1.5]\n`)).toEqual(["bad.yaml:2: seeds[0]: expected a whole number, found 1.5"]);
  });
});

describe("llm block", () => {
  it("an api_key is refused (and not echoed)", () => {
    const lines = problems(`${TASK}llm:\n  model: gpt-4o\n  api_key: sk-secret-123\n`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^bad\.yaml:4: llm\.api_key: /);
    expect(lines[0]).toContain("api_key_env");
    expect(lines[0]).not.toContain("sk-secret-123");
  });

  it("token/secret/password keys are refused too; api_key_env is fine", () => {
    const lines = problems(`${TASK}llm:\n  token: a\n  client_secret: b\n  password: c\n  api_key_env: OPENAI_API_KEY\n`);
    expect(lines.map((l) => l.split(":").slice(0, 3).join(":"))).toEqual(["bad.yaml:3: llm.token", "bad.yaml:4: llm.client_secret", "bad.yaml:5: llm.password"]);
  });
});

describe("matrix", () => {
  it("the same trainer listed twice produces the same job twice", () => {
    const { config } = resolveRunConfig(parseConfigText("dup.yaml", `${TASK}trainers: [PrioritySearch, PrioritySearch]\n`));
    const [line, ...rest] = problemsOf(() => expandMatrix(config));
    expect(rest).toEqual([]);
    expect(line).toContain("internal:numeric_param");
    expect(line).toContain("PrioritySearch");
    expect(line).toContain("seed=123");
    expect(line).toMatch(/\b[0-9a-f]{12}\b/);
    expect(line).toContain("twice");
  });

  it("a params variant that resolves to the same kwargs as another is a duplicate", () => {
    // ps_steps: 1 is PrioritySearch's default num_steps, so both variants resolve identically.
    const text = `${TASK}trainers:\n  - id: PrioritySearch\n    params_variants: [{}, {ps_steps: 1}]\n`;
    const { config } = resolveRunConfig(parseConfigText("dup.yaml", text));
    expect(problemsOf(() => expandMatrix(config))[0]).toContain("twice");
  });
});
