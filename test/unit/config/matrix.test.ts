/** Matrix expansion, job ids, snapshot order, config_hash and run_id (spec §2.8, §3). */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/config-file.js";
import { computeRunId, utcStamp } from "../../../src/config/hashing.js";
import { expandMatrix, suiteOfTaskId } from "../../../src/config/matrix.js";
import { canonicalJson, PyFloat } from "../../../src/codec/python-json.js";
import { loadRunConfig, resolveRunConfig, type RunConfig } from "../../../src/config/run-config.js";
import { computeConfigHash, configSnapshot, newRunId } from "../../../src/config/snapshot.js";

const repoFile = (rel: string) => fileURLToPath(new URL(`../../../${rel}`, import.meta.url));
const SMOKE = repoFile("configs/smoke.yaml");
const MATRIX = repoFile("test/fixtures/configs/matrix-2x2x2x2.yaml");
const load = (text: string): RunConfig => resolveRunConfig(parseConfigText("cfg.yaml", text)).config;

const PS = (steps: number) => ({ num_epochs: 1, num_steps: steps, num_batches: 1, num_candidates: 2, num_proposals: 2 });
const GB = (iters: number) => ({ num_iters: iters, train_batch_size: 2, merge_every: 2, pareto_subset_size: 2 });

describe("golden vector", () => {
  it("configs/smoke.yaml expands to the single job 806f391306ae", () => {
    const jobs = expandMatrix(loadRunConfig(SMOKE).config);
    expect(jobs).toHaveLength(1);
    const [job] = jobs;
    expect(job!.job_id).toBe("806f391306ae");
    expect(job!.task_id).toBe("internal:numeric_param");
    expect(job!.suite).toBe("internal");
    expect(job!.trainer_id).toBe("PrioritySearch");
    expect(job!.seed).toBe(123);
    expect(job!.raw_params).toEqual({ ps_steps: 1, ps_batches: 1 });
    expect(job!.resolved_kwargs).toEqual({
      trainer_kwargs: PS(1),
      optimizer: null,
      optimizer_kwargs: {},
      guide: null,
      guide_kwargs: {},
      logger: null,
      logger_kwargs: {},
      eval_kwargs: {},
    });
  });

  it("execution-only keys and the default trainer do not change the smoke job id", () => {
    const config = load("tasks: [internal:numeric_param]\nps_steps: 1\nmax_workers: 4\nruns_dir: elsewhere\nresume: none\nfail_fast: true\nrun_id: x\n");
    expect(expandMatrix(config).map((j) => j.job_id)).toEqual(["806f391306ae"]);
  });

  it("models as an axis: each listed model is its own job, its model hashed in (python3: 42dbe1ee9a0a, beafb1974b53)", () => {
    const jobs = expandMatrix(load("tasks: [internal:numeric_param]\nps_steps: 1\nseeds: [123]\nllm: {model: [model-a, model-b]}\n"));
    expect(jobs.map((j) => [j.job_id, j.llm_model, j.seed])).toEqual([
      ["42dbe1ee9a0a", "model-a", 123],
      ["beafb1974b53", "model-b", 123],
    ]);
  });

  it("models as an axis: the model varies before the seed, within each task × trainer × variant", () => {
    const jobs = expandMatrix(load("tasks: [internal:numeric_param, internal:rosenbrock]\nseeds: [1, 2]\nllm: {model: [a, b]}\n"));
    expect(jobs.map((j) => `${j.task_id}|${j.llm_model}|${j.seed}`)).toEqual([
      "internal:numeric_param|a|1",
      "internal:numeric_param|a|2",
      "internal:numeric_param|b|1",
      "internal:numeric_param|b|2",
      "internal:rosenbrock|a|1",
      "internal:rosenbrock|a|2",
      "internal:rosenbrock|b|1",
      "internal:rosenbrock|b|2",
    ]);
    expect(new Set(jobs.map((j) => j.job_id)).size).toBe(8);
  });

  it("one model, named or listed alone, keeps the single-model job id and no model field", () => {
    for (const llm of ["llm: {model: gpt-4o}\n", "llm: {model: [gpt-4o]}\n", "llm: {model: null}\n", ""]) {
      const [job, ...rest] = expandMatrix(load(`tasks: [internal:numeric_param]\nps_steps: 1\n${llm}`));
      expect(rest).toEqual([]);
      expect(job!.job_id, llm).toBe("806f391306ae");
      expect("llm_model" in job!, llm).toBe(false);
    }
  });

  it("a model list refuses a model named twice and an optimizer model that would override it", () => {
    expect(() => load("tasks: [internal:numeric_param]\nllm: {model: [a, b, a]}\n")).toThrow(/llm\.model\[2\]: model 'a' is listed twice/);
    expect(() => load("tasks: [internal:numeric_param]\nllm: {model: [a, b], optimizer: {model: c}}\n")).toThrow(/llm\.optimizer\.model overrides every model listed in llm\.model/);
    expect(() => load("tasks: [internal:numeric_param]\nllm: {model: []}\n")).toThrow(/llm\.model/);
    expect(() => load("tasks: [internal:numeric_param]\nllm: {model: [a, 3]}\n")).toThrow(/llm\.model\[1\]/);
  });

  it("the model list is part of the snapshot, so it changes config_hash", () => {
    const hash = (llm: string) => computeConfigHash(configSnapshot(load(`tasks: [internal:numeric_param]\n${llm}`)));
    expect(hash("llm: {model: [a, b]}\n")).not.toBe(hash("llm: {model: [a, c]}\n"));
    expect(hash("llm: {model: [a, b]}\n")).not.toBe(hash("llm: {model: a}\n"));
  });

  it("trainer-level eval_kwargs (ignored) do not change the job id", () => {
    const config = load("tasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    eval_kwargs: {x: 1}\n");
    expect(expandMatrix(config)[0]!.job_id).toBe("806f391306ae");
  });

  it("YAML floats hash like Python floats (1.0 stays 1.0): python3 id 1b83c198284f", () => {
    const config = load(
      [
        "tasks: [internal:numeric_param]",
        "seeds: [7]",
        "trainers:",
        "  - id: PrioritySearch",
        "    params_variants:",
        "      - {temperature: 1.0, learning_rate: 0.1, eps: 1.0e-5, budget: 1.0e+16}",
      ].join("\n"),
    );
    const [job] = expandMatrix(config);
    expect(job!.resolved_kwargs.trainer_kwargs.temperature).toBeInstanceOf(PyFloat);
    expect(job!.job_id).toBe("1b83c198284f");
  });
});

describe("expansion order and ids", () => {
  // [task, trainer, resolved trainer_kwargs, seed, job_id from python3]
  const expected: ReadonlyArray<readonly [string, string, Record<string, number>, number, string]> = [
    ["internal:numeric_param", "PrioritySearch", PS(1), 2, "dedb1d662bbc"],
    ["internal:numeric_param", "PrioritySearch", PS(1), 1, "818a0be9f85b"],
    ["internal:numeric_param", "PrioritySearch", PS(2), 2, "717997ae76d0"],
    ["internal:numeric_param", "PrioritySearch", PS(2), 1, "b45500a9d756"],
    ["internal:numeric_param", "GEPA-Base", GB(1), 2, "7b593b8de2b2"],
    ["internal:numeric_param", "GEPA-Base", GB(1), 1, "32aa80a2d6c6"],
    ["internal:numeric_param", "GEPA-Base", GB(3), 2, "33691923de3a"],
    ["internal:numeric_param", "GEPA-Base", GB(3), 1, "9892922dfced"],
    ["circle_packing", "PrioritySearch", PS(1), 2, "a414523802df"],
    ["circle_packing", "PrioritySearch", PS(1), 1, "7d4528672464"],
    ["circle_packing", "PrioritySearch", PS(2), 2, "2ee9200d9424"],
    ["circle_packing", "PrioritySearch", PS(2), 1, "d28c66f1169c"],
    ["circle_packing", "GEPA-Base", GB(1), 2, "4ac4d0bf1030"],
    ["circle_packing", "GEPA-Base", GB(1), 1, "91d02a023c52"],
    ["circle_packing", "GEPA-Base", GB(3), 2, "4359ea781b95"],
    ["circle_packing", "GEPA-Base", GB(3), 1, "60156567ab88"],
  ];

  it("2×2×2×2 expands task-major: tasks × trainers × variants × seeds (seed order as written)", () => {
    const jobs = expandMatrix(loadRunConfig(MATRIX).config);
    expect(jobs.map((j) => [j.task_id, j.trainer_id, j.resolved_kwargs.trainer_kwargs, j.seed, j.job_id])).toEqual(expected);
  });

  it("ids are distinct and stable across loads", () => {
    const first = expandMatrix(loadRunConfig(MATRIX).config).map((j) => j.job_id);
    const second = expandMatrix(loadRunConfig(MATRIX).config).map((j) => j.job_id);
    expect(new Set(first).size).toBe(16);
    expect(second).toEqual(first);
    for (const id of first) expect(id).toMatch(/^[0-9a-f]{12}$/);
  });

  it("raw_params keep the configured spelling; seeds share one read-only copy, which a write cannot change", () => {
    const jobs = expandMatrix(loadRunConfig(MATRIX).config);
    expect(jobs.map((j) => j.raw_params).slice(0, 8)).toEqual([
      { ps_steps: 1 },
      { ps_steps: 1 },
      { ps_steps: 2 },
      { ps_steps: 2 },
      { gepa_iters: 1 },
      { gepa_iters: 1 },
      { gepa_iters: 3 },
      { gepa_iters: 3 },
    ]);
    // Seeds of one cell share its kwargs (a 10,000-seed matrix held 10,000 copies); frozen, so
    // that no job can change another's.
    expect(jobs[1]!.raw_params).toBe(jobs[0]!.raw_params);
    expect(jobs[2]!.raw_params).not.toBe(jobs[0]!.raw_params);
    expect(() => ((jobs[0]!.raw_params as Record<string, unknown>).ps_steps = 5)).toThrow(TypeError);
    expect(() => ((jobs[0]!.resolved_kwargs.trainer_kwargs as Record<string, unknown>).ps_steps = 5)).toThrow(TypeError);
    expect(jobs[1]!.raw_params).toEqual({ ps_steps: 1 });
  });

  it("the id depends on key content, not YAML key order or alias spelling", () => {
    const a = load("tasks: [t:a]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 2, ps_batches: 3}]\n");
    const b = load("trainers:\n  - name: PrioritySearch\n    params: {num_batches: 3, num_steps: 2}\ntasks: [{task: t:a}]\n");
    expect(expandMatrix(a)[0]!.job_id).toBe(expandMatrix(b)[0]!.job_id);
  });

  it("eval_kwargs, optimizer, logger and seed all change the id", () => {
    const base = "tasks:\n  - id: t:a\n    eval_kwargs: {k: 1}\ntrainers:\n  - id: PrioritySearch\n";
    const id = (text: string) => expandMatrix(load(text))[0]!.job_id;
    const ids = [
      id(base),
      id(base.replace("{k: 1}", "{k: 2}")),
      id(`${base}    optimizer: OptoPrimeV2\n`),
      id(`${base}    logger: none\n`),
      id(`${base}    optimizer_kwargs: {lr: 0.5}\n`),
      id(`${base}seeds: [124]\n`),
      id(base.replace("{k: 1}", "{k: 1.0}")),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("a trainer with no params variants still yields one job per seed", () => {
    const config = load("tasks: [t:a]\nseeds: [1, 2]\n");
    const bare: RunConfig = { ...config, trainers: [{ ...config.trainers[0]!, params_variants: [] }] };
    const jobs = expandMatrix(bare);
    expect(jobs.map((j) => j.seed)).toEqual([1, 2]);
    expect(jobs.map((j) => j.job_id)).toEqual(expandMatrix(config).map((j) => j.job_id));
  });

  it("the same task twice with different eval_kwargs gives distinct jobs", () => {
    const config = load("tasks:\n  - id: t:a\n    eval_kwargs: {objective_mode: weighted}\n  - id: t:a\n    eval_kwargs: {objective_mode: pareto}\n");
    const jobs = expandMatrix(config);
    expect(jobs).toHaveLength(2);
    expect(jobs[0]!.job_id).not.toBe(jobs[1]!.job_id);
  });
});

describe("suite derivation", () => {
  it.each([
    ["internal:numeric_param", "internal"],
    ["trace_examples:greeting", "trace_examples"],
    ["hf:gsm8k:main", "hf"],
    ["veribench:3_sum", "veribench"],
    ["circle_packing", "llm4ad"],
    ["optimization_tsp_construct", "llm4ad"],
  ])("%s → %s", (taskId, suite) => {
    expect(suiteOfTaskId(taskId)).toBe(suite);
  });

  it("jobs carry the suite of their task", () => {
    const jobs = expandMatrix(loadRunConfig(MATRIX).config);
    expect([...new Set(jobs.map((j) => j.suite))]).toEqual(["internal", "llm4ad"]);
  });
});

describe("snapshot (§2.8)", () => {
  const full = [
    "run_id: r1",
    "runs_dir: out",
    "mode: real",
    "seeds: [3, 4]",
    "max_workers: 2",
    "fail_fast: true",
    "resume: failed",
    "job_timeout: 600",
    "eval_kwargs: {g: 1}",
    "trainer_kwargs: {threads: 2}",
    "llm: {model: m, provider: p}",
    "tags: [a, true]",
    "tasks:",
    "  - id: t:a",
    "    eval_kwargs: {k: 1}",
    "trainers:",
    "  - id: PrioritySearch",
    "    ps_steps: 3",
    "    params_variants: [{ps_batches: 2}]",
    "    optimizer: OptoPrimeV2",
    "    optimizer_kwargs: {lr: 0.5}",
    "    guide: G",
    "    guide_kwargs: {s: 1}",
    "    logger: none",
    "    logger_kwargs: {l: 1}",
  ].join("\n");

  it("keys are in exactly the §2.8 order, nested entries too", () => {
    const snapshot = configSnapshot(load(full));
    expect(Object.keys(snapshot)).toEqual([
      "run_id",
      "runs_dir",
      "mode",
      "seeds",
      "max_workers",
      "fail_fast",
      "resume",
      "job_timeout",
      "tasks",
      "llm",
      "tags",
      "trainers",
      "eval_kwargs",
      "trainer_kwargs",
    ]);
    const tasks = snapshot.tasks as Array<Record<string, unknown>>;
    expect(Object.keys(tasks[0]!)).toEqual(["id", "eval_kwargs"]);
    const trainers = snapshot.trainers as Array<Record<string, unknown>>;
    expect(Object.keys(trainers[0]!)).toEqual(["id", "params_variants", "optimizer", "optimizer_kwargs", "guide", "guide_kwargs", "logger", "logger_kwargs"]);
  });

  it("holds the resolved values: merged task eval_kwargs, post-merge variants, stringified tags", () => {
    const snapshot = configSnapshot(load(full));
    expect(snapshot.tasks).toEqual([{ id: "t:a", eval_kwargs: { g: 1, k: 1 } }]);
    expect((snapshot.trainers as Array<Record<string, unknown>>)[0]!.params_variants).toEqual([{ threads: 2, ps_steps: 3, ps_batches: 2 }]);
    expect(snapshot.tags).toEqual(["a", "True"]);
    expect(snapshot.trainer_kwargs).toEqual({ threads: 2 });
    expect(snapshot.eval_kwargs).toEqual({ g: 1 });
  });

  it("job_timeout canonicalizes as a float (600 → 600.0); null stays null", () => {
    expect(canonicalJson(configSnapshot(load(full)).job_timeout)).toBe("600.0");
    expect(canonicalJson(configSnapshot(load("tasks: [t:a]\njob_timeout: 12.5\n")).job_timeout)).toBe("12.5");
    expect(configSnapshot(load("tasks: [t:a]\n")).job_timeout).toBeNull();
  });

  it("is itself a loadable config that reloads to the same snapshot", () => {
    const snapshot = configSnapshot(load(full));
    const reloaded = resolveRunConfig(parseConfigText("snapshot.json", JSON.stringify(snapshot)));
    expect(reloaded.warnings).toEqual([]);
    expect(canonicalJson(configSnapshot(reloaded.config))).toBe(canonicalJson(snapshot));
    expect(expandMatrix(reloaded.config).map((j) => j.job_id)).toEqual(expandMatrix(load(full)).map((j) => j.job_id));
  });

  it("is a copy: mutating it does not touch the config", () => {
    const config = load(full);
    const snapshot = configSnapshot(config);
    (snapshot.tasks as Array<{ eval_kwargs: Record<string, unknown> }>)[0]!.eval_kwargs.k = 99;
    expect(config.tasks[0]!.eval_kwargs.k).toBe(1);
  });
});

describe("computeConfigHash", () => {
  const base = "tasks: [t:a, t:b]\ntrainers: [PrioritySearch]\nseeds: [1]\n";
  const hash = (text: string) => computeConfigHash(configSnapshot(load(text)));

  it("is 16 hex characters and deterministic", () => {
    expect(hash(base)).toMatch(/^[0-9a-f]{16}$/);
    expect(hash(base)).toBe(hash(base));
  });

  it.each([
    ["run_id", "run_id: other\n"],
    ["runs_dir", "runs_dir: /tmp/elsewhere\n"],
    ["max_workers", "max_workers: 8\n"],
    ["resume", "resume: none\n"],
    ["fail_fast", "fail_fast: true\n"],
  ])("ignores %s", (_key, extra) => {
    expect(hash(`${base}${extra}`)).toBe(hash(base));
  });

  it.each([
    ["tasks", (t: string) => t.replace("[t:a, t:b]", "[t:a]")],
    ["task order", (t: string) => t.replace("[t:a, t:b]", "[t:b, t:a]")],
    ["trainers", (t: string) => t.replace("[PrioritySearch]", "[GEPA-Base]")],
    ["seeds", (t: string) => t.replace("seeds: [1]", "seeds: [2]")],
    ["mode", (t: string) => `${t}mode: real\n`],
    ["job_timeout", (t: string) => `${t}job_timeout: 60\n`],
    ["trainer_kwargs", (t: string) => `${t}trainer_kwargs: {ps_steps: 2}\n`],
    ["eval_kwargs", (t: string) => `${t}eval_kwargs: {k: 1}\n`],
  ])("changes with %s", (_what, edit) => {
    expect(hash(edit(base))).not.toBe(hash(base));
  });

  it("distinguishes job_timeout 60 from no job_timeout and from 61", () => {
    expect(new Set([hash(base), hash(`${base}job_timeout: 60\n`), hash(`${base}job_timeout: 61\n`)]).size).toBe(3);
  });
});

describe("run ids", () => {
  const now = new Date(Date.UTC(2026, 10, 21, 18, 4, 43, 999));

  it("utcStamp is YYYYMMDD-HHMMSS in UTC", () => {
    expect(utcStamp(now)).toBe("20261121-180443");
    expect(utcStamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)))).toBe("20260102-030405");
  });

  it("computeRunId has the format <stamp>-<8 hex>", () => {
    const id = computeRunId({ a: 1 }, "unknown", now);
    expect(id).toMatch(/^\d{8}-\d{6}-[0-9a-f]{8}$/);
    expect(id.startsWith("20261121-180443-")).toBe(true);
  });

  it("the suffix matches Python for the smoke snapshot (sha256 of {config, git})", () => {
    // python3: sha256(json.dumps({"config": snapshot_without_run_id, "git": g}, sort_keys=True))[:8]
    const snapshot = configSnapshot(loadRunConfig(SMOKE).config);
    expect(newRunId(snapshot, "unknown", now)).toBe("20261121-180443-423e9749");
    expect(newRunId(snapshot, "d1469af000000000000000000000000000000000", now)).toBe("20261121-180443-0bed8d82");
  });

  it("same snapshot + git → same suffix at another time; run_id itself is not hashed", () => {
    const snapshot = configSnapshot(loadRunConfig(SMOKE).config);
    const later = new Date(Date.UTC(2027, 5, 1, 0, 0, 0));
    const a = newRunId(snapshot, "abc", now);
    const b = newRunId({ ...snapshot, run_id: "explicit-run" }, "abc", later);
    expect(a.slice(-8)).toBe(b.slice(-8));
    expect(a.slice(0, 15)).not.toBe(b.slice(0, 15));
  });

  it("a different git sha or config changes the suffix", () => {
    const snapshot = configSnapshot(loadRunConfig(SMOKE).config);
    const suffix = (s: Record<string, unknown>, git: string) => newRunId(s, git, now).slice(-8);
    expect(suffix(snapshot, "abc")).not.toBe(suffix(snapshot, "abd"));
    expect(suffix(snapshot, "abc")).not.toBe(suffix({ ...snapshot, seeds: [124] }, "abc"));
  });

  it("job_timeout 600 is hashed as 600.0 like Python (python3 suffix 0fc7af62)", () => {
    const config = loadRunConfig(SMOKE).config;
    const snapshot = configSnapshot({ ...config, job_timeout: 600 });
    expect(newRunId(snapshot, "unknown", now).slice(-8)).toBe("0fc7af62");
  });
});
