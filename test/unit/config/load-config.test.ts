/** Config loading: aliases, defaults and normalization of spec §2.1–2.4 (with our deliberate changes). */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/config-file.js";
import { canonicalJson, PyFloat } from "../../../src/codec/python-json.js";
import { loadRunConfig, resolveRunConfig, type LoadedConfig, type RunConfig } from "../../../src/config/run-config.js";
import { computeConfigHash, configSnapshot } from "../../../src/config/snapshot.js";

const loaded = (text: string, path = "cfg.yaml"): LoadedConfig => resolveRunConfig(parseConfigText(path, text));
const load = (text: string): RunConfig => loaded(text).config;
const TASK = "tasks: [internal:numeric_param]\n";

const tmp = mkdtempSync(join(tmpdir(), "trace-bench-config-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("defaults (§2.1)", () => {
  it("a config with only tasks gets every default", () => {
    const { config, warnings } = loaded(TASK);
    expect(warnings).toEqual([]);
    expect(config).toEqual({
      run_id: null,
      runs_dir: "runs",
      mode: "stub",
      seeds: [123],
      max_workers: 1,
      fail_fast: false,
      eval_workers: null,
      eval_memory_mb: 4096,
      resume: "auto",
      job_timeout: null,
      tasks: [{ id: "internal:numeric_param", eval_kwargs: {} }],
      llm: {},
      budget: { max_tokens_per_job: null, max_cost_per_job: null, max_tokens_per_run: null, max_cost_per_run: null },
      pricing: {},
      tags: [],
      trainers: [
        {
          id: "PrioritySearch",
          params_variants: [{}],
          optimizer: null,
          optimizer_kwargs: {},
          guide: null,
          guide_kwargs: {},
          logger: null,
          logger_kwargs: {},
        },
      ],
      eval_kwargs: {},
      trainer_kwargs: {},
    });
  });

  it("eval_workers and eval_memory_mb size the Python evaluation pool; they are not part of config_hash", () => {
    const config = load(`${TASK}eval_workers: 3\neval_memory_mb: 2048\n`);
    expect([config.eval_workers, config.eval_memory_mb]).toEqual([3, 2048]);
    const hash = (c: RunConfig) => computeConfigHash(configSnapshot(c));
    expect(hash(config)).toBe(hash(load(TASK)));
    expect(configSnapshot(config)).toMatchObject({ eval_workers: 3, eval_memory_mb: 2048 });
    expect(() => load(`${TASK}eval_workers: 0\n`)).toThrow(/eval_workers: expected a whole number ≥ 1, found 0/);
  });

  it("explicit values are taken verbatim", () => {
    const config = load(`${TASK}run_id: my-run\nruns_dir: out/runs\nmode: real\nfail_fast: true\nresume: failed\n`);
    expect(config.run_id).toBe("my-run");
    expect(config.runs_dir).toBe("out/runs");
    expect(config.mode).toBe("real");
    expect(config.fail_fast).toBe(true);
    expect(config.resume).toBe("failed");
  });

  it("run_id: null means generated later", () => {
    expect(load(`${TASK}run_id: null\n`).run_id).toBeNull();
  });

  it.each(["auto", "failed", "none"] as const)("resume: %s", (mode) => {
    expect(load(`${TASK}resume: ${mode}\n`).resume).toBe(mode);
  });
});

describe("aliases and precedence (§2.1)", () => {
  it("runs_root is an alias of runs_dir; runs_dir wins when both are given", () => {
    expect(load(`${TASK}runs_root: elsewhere\n`).runs_dir).toBe("elsewhere");
    expect(load(`${TASK}runs_root: elsewhere\nruns_dir: here\n`).runs_dir).toBe("here");
  });

  it("seeds: a list, a single seed, missing, null, empty", () => {
    expect(load(`${TASK}seeds: [3, 1, 2]\n`).seeds).toEqual([3, 1, 2]);
    expect(load(`${TASK}seed: 7\n`).seeds).toEqual([7]);
    expect(load(`${TASK}seeds: null\nseed: 9\n`).seeds).toEqual([9]);
    expect(load(`${TASK}seeds: null\n`).seeds).toEqual([123]);
    expect(load(`${TASK}seeds: []\n`).seeds).toEqual([123]);
    expect(load(`${TASK}seeds: [5]\nseed: 9\n`).seeds).toEqual([5]);
    expect(load(`${TASK}seeds: [-1, 0]\n`).seeds).toEqual([-1, 0]);
  });

  it("max_workers > n_concurrent > n-concurrent", () => {
    expect(load(`${TASK}n-concurrent: 3\n`).max_workers).toBe(3);
    expect(load(`${TASK}n_concurrent: 4\nn-concurrent: 3\n`).max_workers).toBe(4);
    expect(load(`${TASK}max_workers: 5\nn_concurrent: 4\nn-concurrent: 3\n`).max_workers).toBe(5);
  });

  it("job_timeout and job-timeout; job_timeout wins; null stays null", () => {
    expect(load(`${TASK}job_timeout: 600\n`).job_timeout).toBe(600);
    expect(load(`${TASK}job-timeout: 30.5\n`).job_timeout).toBe(30.5);
    expect(load(`${TASK}job_timeout: 10\njob-timeout: 20\n`).job_timeout).toBe(10);
    expect(load(`${TASK}job_timeout: null\n`).job_timeout).toBeNull();
    // An integral float is still a plain number on the RunConfig.
    expect(load(`${TASK}job_timeout: 60.0\n`).job_timeout).toBe(60);
  });
});

describe("tasks (§2.2)", () => {
  it("accepts strings and mappings keyed by id, key or task (first present wins)", () => {
    const config = load(
      "tasks:\n  - plain:task\n  - id: a:1\n    key: ignored\n  - key: b:2\n    task: ignored\n  - task: c:3\n",
    );
    expect(config.tasks.map((t) => t.id)).toEqual(["plain:task", "a:1", "b:2", "c:3"]);
  });

  it("global eval_kwargs are merged (shallow) under each task's eval_kwargs", () => {
    const config = load(
      [
        "eval_kwargs: {a: 1, b: 2, nested: {x: 1}}",
        "tasks:",
        "  - s:plain",
        "  - id: s:mapped",
        "    eval_kwargs: {b: 3, nested: {y: 2}}",
        "  - id: s:no-eval",
      ].join("\n"),
    );
    expect(config.eval_kwargs).toEqual({ a: 1, b: 2, nested: { x: 1 } });
    expect(config.tasks[0]!.eval_kwargs).toEqual({ a: 1, b: 2, nested: { x: 1 } });
    expect(config.tasks[1]!.eval_kwargs).toEqual({ a: 1, b: 3, nested: { y: 2 } });
    expect(config.tasks[2]!.eval_kwargs).toEqual({ a: 1, b: 2, nested: { x: 1 } });
  });

  it("each task gets its own copy of the global eval_kwargs", () => {
    const config = load("eval_kwargs: {nested: {x: 1}}\ntasks: [a:1, b:2]\n");
    expect(config.tasks[0]!.eval_kwargs).not.toBe(config.tasks[1]!.eval_kwargs);
    expect(config.tasks[0]!.eval_kwargs.nested).not.toBe(config.eval_kwargs.nested);
  });

  it("top-level eval_kwargs are NOT copied into params variants or trainer_kwargs", () => {
    const config = load(`${TASK}eval_kwargs: {objective_mode: pareto}\ntrainers:\n  - PrioritySearch\n  - id: GEPA-Base\n    params_variants: [{gepa_iters: 2}]\n`);
    for (const trainer of config.trainers) for (const v of trainer.params_variants) expect(v).not.toHaveProperty("eval_kwargs");
    expect(config.trainer_kwargs).toEqual({});
  });

  it("the same task may appear twice with different eval_kwargs", () => {
    const config = load("tasks:\n  - id: t:1\n    eval_kwargs: {objective_mode: weighted}\n  - id: t:1\n    eval_kwargs: {objective_mode: pareto}\n");
    expect(config.tasks.map((t) => t.eval_kwargs.objective_mode)).toEqual(["weighted", "pareto"]);
  });
});

describe("trainers (§2.3)", () => {
  it("no trainers / null / empty list → one PrioritySearch with the global trainer kwargs", () => {
    for (const extra of ["", "trainers: null\n", "trainers: []\n"]) {
      const config = load(`${TASK}trainer_kwargs: {ps_steps: 2}\n${extra}`);
      expect(config.trainers).toHaveLength(1);
      expect(config.trainers[0]!.id).toBe("PrioritySearch");
      expect(config.trainers[0]!.params_variants).toEqual([{ ps_steps: 2 }]);
    }
  });

  it("accepts strings and mappings keyed by id, name, trainer or key (first present wins)", () => {
    const config = load(
      `${TASK}trainers:\n  - GEPA-Base\n  - id: A\n    name: other\n  - name: B\n    trainer: other\n  - trainer: C\n    key: other\n  - key: D\n`,
    );
    expect(config.trainers.map((t) => t.id)).toEqual(["GEPA-Base", "A", "B", "C", "D"]);
  });

  it("optimizer/guide/logger default to null and their kwargs to {}", () => {
    const trainer = load(`${TASK}trainers:\n  - id: A\n`).trainers[0]!;
    expect(trainer).toEqual({
      id: "A",
      params_variants: [{}],
      optimizer: null,
      optimizer_kwargs: {},
      guide: null,
      guide_kwargs: {},
      logger: null,
      logger_kwargs: {},
    });
  });

  it("optimizer/guide/logger and their kwargs are kept", () => {
    const trainer = load(
      `${TASK}trainers:\n  - id: A\n    optimizer: OptoPrimeV2\n    optimizer_kwargs: {memory_size: 5}\n    guide: LLMJudge\n    guide_kwargs: {strict: true}\n    logger: none\n    logger_kwargs: {x: 1}\n`,
    ).trainers[0]!;
    expect(trainer.optimizer).toBe("OptoPrimeV2");
    expect(trainer.optimizer_kwargs).toEqual({ memory_size: 5 });
    expect(trainer.guide).toBe("LLMJudge");
    expect(trainer.guide_kwargs).toEqual({ strict: true });
    expect(trainer.logger).toBe("none");
    expect(trainer.logger_kwargs).toEqual({ x: 1 });
  });

  it("params_variants > params > trainer_kwargs; an empty params mapping falls through", () => {
    const config = load(
      [
        TASK.trimEnd(),
        "trainers:",
        "  - id: A",
        "    params_variants: [{v: 1}, {v: 2}]",
        "    params: {p: 1}",
        "    trainer_kwargs: {t: 1}",
        "  - id: B",
        "    params: {p: 1}",
        "    trainer_kwargs: {t: 1}",
        "  - id: C",
        "    params: {}",
        "    trainer_kwargs: {t: 1}",
        "  - id: D",
        "    params_variants: null",
        "    trainer_kwargs: {t: 2}",
        "  - id: E",
        "    params_variants: []",
        "    params: {p: 1}",
      ].join("\n"),
    );
    expect(config.trainers.map((t) => t.params_variants)).toEqual([[{ v: 1 }, { v: 2 }], [{ p: 1 }], [{ t: 1 }], [{ t: 2 }], [{}]]);
  });

  it("each final variant = global trainer_kwargs ⊕ variant (variant wins)", () => {
    const config = load(`${TASK}trainer_kwargs: {threads: 4, x: 1}\ntrainers:\n  - id: A\n    params_variants: [{x: 2}, {}]\n  - B\n`);
    expect(config.trainer_kwargs).toEqual({ threads: 4, x: 1 });
    expect(config.trainers[0]!.params_variants).toEqual([{ threads: 4, x: 2 }, { threads: 4, x: 1 }]);
    expect(config.trainers[1]!.params_variants).toEqual([{ threads: 4, x: 1 }]);
    expect(config.trainers[0]!.params_variants[0]).not.toBe(config.trainers[0]!.params_variants[1]);
  });

  it("top-level optimizer_kwargs are merged under every trainer's optimizer_kwargs", () => {
    const config = load(
      [
        TASK.trimEnd(),
        "optimizer_kwargs: {memory_size: 5, lr: 1}",
        "trainers:",
        "  - A",
        "  - id: B",
        "    optimizer_kwargs: {lr: 2}",
        "  - id: C",
        "    optimizer_kwargs: [{lr: 3}, {}]",
      ].join("\n"),
    );
    expect(config.trainers.map((t) => t.optimizer_kwargs)).toEqual([
      { memory_size: 5, lr: 1 },
      { memory_size: 5, lr: 2 },
      [
        { memory_size: 5, lr: 3 },
        { memory_size: 5, lr: 1 },
      ],
    ]);
    for (const t of config.trainers) for (const v of t.params_variants) expect(v).not.toHaveProperty("optimizer_kwargs");
  });

  it("trainer-level eval_kwargs are ignored with a warning", () => {
    const { config, warnings } = loaded(`${TASK}trainers:\n  - id: A\n    eval_kwargs: {x: 1}\n`, "t.yaml");
    expect(config.trainers[0]!.params_variants).toEqual([{}]);
    expect(config.tasks[0]!.eval_kwargs).toEqual({});
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^t\.yaml:4: /);
    expect(warnings[0]).toContain("trainers[0].eval_kwargs");
    expect(warnings[0]).toContain("ignored");
  });
});

describe("legacy knobs (§2.4)", () => {
  it("top-level knobs (either spelling) join the global trainer kwargs after trainer_kwargs", () => {
    const config = load(
      `${TASK}trainer_kwargs: {ps_steps: 1, other: 1}\nps_steps: 5\nps-batches: 2\nthreads: 4\nverbose: true\ngepa-merge-every: 3\n`,
    );
    expect(config.trainer_kwargs).toEqual({ ps_steps: 5, other: 1, ps_batches: 2, threads: 4, verbose: true, gepa_merge_every: 3 });
    expect(config.trainers[0]!.params_variants).toEqual([config.trainer_kwargs]);
  });

  it.each([
    "threads",
    "num_threads",
    "ps_steps",
    "ps_batches",
    "ps_candidates",
    "ps_proposals",
    "ps_mem_update",
    "gepa_iters",
    "gepa_train_bs",
    "gepa_merge_every",
    "gepa_pareto_subset",
  ])("top-level %s (and its dash spelling) is a knob", (knob) => {
    expect(load(`${TASK}${knob}: 3\n`).trainer_kwargs).toEqual({ [knob]: 3 });
    const dashed = knob.replace(/_/g, "-");
    const { config, warnings } = loaded(`${TASK}${dashed}: 4\n`);
    expect(config.trainer_kwargs).toEqual({ [knob]: 4 });
    expect(warnings).toEqual([]);
  });

  it("final variant = global ⊕ trainer-entry knobs ⊕ variant", () => {
    const config = load(
      [
        TASK.trimEnd(),
        "ps_steps: 2",
        "threads: 8",
        "trainers:",
        "  - id: PrioritySearch",
        "    ps-steps: 3",
        "    ps_candidates: 5",
        "    params_variants:",
        "      - {ps_steps: 4}",
        "      - {ps_candidates: 6}",
        "  - id: GEPA-Base",
      ].join("\n"),
    );
    expect(config.trainers[0]!.params_variants).toEqual([
      { ps_steps: 4, threads: 8, ps_candidates: 5 },
      { ps_steps: 3, threads: 8, ps_candidates: 6 },
    ]);
    // Entry knobs stay with their trainer.
    expect(config.trainers[1]!.params_variants).toEqual([{ ps_steps: 2, threads: 8 }]);
    expect(config.trainer_kwargs).toEqual({ ps_steps: 2, threads: 8 });
  });

  it("trainer-entry knobs apply to a single params variant too", () => {
    const config = load(`${TASK}trainers:\n  - id: GEPA-UCB\n    gepa-iters: 7\n    params: {gepa_train_bs: 2}\n`);
    expect(config.trainers[0]!.params_variants).toEqual([{ gepa_iters: 7, gepa_train_bs: 2 }]);
  });
});

describe("llm and tags", () => {
  it("llm block is copied", () => {
    const config = load(`${TASK}llm:\n  provider: openai\n  model: gpt-4o-mini\n  base_url: http://localhost:8000\n  api_key_env: MY_KEY\n`);
    expect(config.llm).toEqual({ provider: "openai", model: "gpt-4o-mini", base_url: "http://localhost:8000", api_key_env: "MY_KEY" });
    expect(load(`${TASK}llm: null\n`).llm).toEqual({});
  });

  it("tags are stringified like Python str()", () => {
    expect(load(`${TASK}tags: [smoke, true, false, 1.5, 2, 1.0, yes, y]\n`).tags).toEqual([
      "smoke",
      "True",
      "False",
      "1.5",
      "2",
      "1.0",
      "True",
      "y",
    ]);
    expect(load(`${TASK}tags: null\n`).tags).toEqual([]);
  });
});

describe("unknown keys are warnings, not errors", () => {
  it("warns about unknown keys at the top level, in tasks, trainers and llm, with file:line", () => {
    const text = [
      "tasks:", //            1
      "  - id: a:1", //       2
      "    flavour: x", //    3
      "trainers:", //         4
      "  - id: A", //         5
      "    colour: red", //   6
      "llm:", //              7
      "  temperature: 0.2", //8
      "bogus: 1", //          9
    ].join("\n");
    const { warnings, config } = loaded(text, "w.yaml");
    expect(config.tasks[0]!.id).toBe("a:1");
    expect(warnings).toHaveLength(4);
    const find = (key: string) => warnings.find((w) => w.includes(`'${key}'`));
    expect(find("bogus")).toMatch(/^w\.yaml:9: .*top level/);
    expect(find("flavour")).toMatch(/^w\.yaml:3: .*tasks\[0\]/);
    expect(find("colour")).toMatch(/^w\.yaml:6: .*trainers\[0\]/);
    expect(find("temperature")).toMatch(/^w\.yaml:8: .*llm/);
  });

  it("unknown keys do not reach the config", () => {
    const { config } = loaded(`${TASK}trainers:\n  - id: A\n    colour: red\n`);
    expect(config.trainers[0]!.params_variants).toEqual([{}]);
  });
});

describe("YAML follows PyYAML (YAML 1.1)", () => {
  const evalValues = (list: string) => load(`${TASK}eval_kwargs: {v: [${list}]}\n`).eval_kwargs.v as unknown[];

  it("yes/no/on/off/True/FALSE are booleans; y/n/Y/N are strings", () => {
    expect(evalValues("yes, no, on, off, True, FALSE, Yes, OFF, y, n, Y, N")).toEqual([
      true,
      false,
      true,
      false,
      true,
      false,
      true,
      false,
      "y",
      "n",
      "Y",
      "N",
    ]);
  });

  it("a float needs a dot: 1e3 is a string, 1.0e+3 is a float", () => {
    const values = evalValues("1e3, 1.0e+3, 1e-5, 1.0e-5, 6.02e+23");
    expect(values[0]).toBe("1e3");
    expect(values[1]).toBeInstanceOf(PyFloat);
    expect((values[1] as PyFloat).value).toBe(1000);
    expect(values[2]).toBe("1e-5");
    expect(values[3]).toBe(1e-5);
    // 6.02e+23 is integral, so it is kept as a PyFloat and prints as a float.
    expect(values[4]).toBeInstanceOf(PyFloat);
    expect(canonicalJson(values)).toBe(`["1e3", 1000.0, "1e-5", 1e-05, 6.02e+23]`);
  });

  it("integral floats become PyFloat and print as 1.0; other numbers stay numbers", () => {
    const values = evalValues("1.0, 1, 1.5, -2.0, 1., .5, 0x1F, 017, 1_000, 1:30, ~, null, .inf, -.inf");
    expect(canonicalJson(values)).toBe("[1.0, 1, 1.5, -2.0, 1.0, 0.5, 31, 15, 1000, 90, null, null, Infinity, -Infinity]");
    expect(values[0]).toBeInstanceOf(PyFloat);
    expect(values[1]).toBe(1);
  });

  it(".nan is NaN and dates stay as their text", () => {
    const values = evalValues(".nan, 2024-01-01");
    expect(Number.isNaN(values[0])).toBe(true);
    expect(values[1]).toBe("2024-01-01");
  });

  it("an empty document parses as an empty mapping", () => {
    expect(parseConfigText("e.yaml", "").data).toEqual({});
    expect(parseConfigText("e.yaml", "# only a comment\n").data).toEqual({});
  });

  it("anchors and merge keys work", () => {
    const config = load(`${TASK}base: &b {ps_steps: 2, threads: 2}\ntrainers:\n  - id: A\n    params_variants:\n      - {<<: *b, threads: 3}\n`);
    expect(config.trainers[0]!.params_variants).toEqual([{ ps_steps: 2, threads: 3 }]);
  });
});

describe("config files on disk", () => {
  it("loads a YAML file and reports its path", () => {
    const path = join(tmp, "run.yaml");
    writeFileSync(path, "tasks: [internal:numeric_param]\nseeds: [1, 2]\nresume: none\n");
    const { config, path: loadedPath } = loadRunConfig(path);
    expect(loadedPath).toBe(path);
    expect(config.seeds).toEqual([1, 2]);
    expect(config.resume).toBe("none");
  });

  it("loads a .json file", () => {
    const path = join(tmp, "run.json");
    writeFileSync(
      path,
      JSON.stringify(
        {
          tasks: [{ id: "internal:numeric_param", eval_kwargs: { k: 1 } }],
          trainers: [{ name: "GEPA-Base", params_variants: [{ gepa_iters: 2 }] }],
          "n-concurrent": 2,
          "job-timeout": 12.5,
          tags: [true, 3],
        },
        null,
        2,
      ),
    );
    const { config, warnings } = loadRunConfig(path);
    expect(warnings).toEqual([]);
    expect(config.tasks).toEqual([{ id: "internal:numeric_param", eval_kwargs: { k: 1 } }]);
    expect(config.trainers[0]!.id).toBe("GEPA-Base");
    expect(config.trainers[0]!.params_variants).toEqual([{ gepa_iters: 2 }]);
    expect(config.max_workers).toBe(2);
    expect(config.job_timeout).toBe(12.5);
    expect(config.tags).toEqual(["True", "3"]);
  });

  it("a tab-indented JSON file loads", () => {
    const path = join(tmp, "tabs.json");
    writeFileSync(path, '{\n\t"tasks": ["a:b"],\n\t"seed": 4\n}\n');
    const { config } = loadRunConfig(path);
    expect(config.tasks[0]!.id).toBe("a:b");
    expect(config.seeds).toEqual([4]);
  });

  it("a .json config and the equivalent YAML config load to the same RunConfig", () => {
    const yamlPath = join(tmp, "same.yaml");
    const jsonPath = join(tmp, "same.json");
    writeFileSync(yamlPath, "tasks: [x:y]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 2, temperature: 0.5}]\nseeds: [1]\n");
    writeFileSync(jsonPath, JSON.stringify({ tasks: ["x:y"], trainers: [{ id: "PrioritySearch", params_variants: [{ ps_steps: 2, temperature: 0.5 }] }], seeds: [1] }));
    expect(canonicalJson(loadRunConfig(jsonPath).config)).toBe(canonicalJson(loadRunConfig(yamlPath).config));
  });
});
