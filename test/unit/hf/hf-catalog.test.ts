/** The hf task ids: the original's 15 catalogue entries as 51 ids, subtask expansion, task types. */
import { describe, expect, it } from "vitest";
import { expandHfTaskId, hfTaskIds, resolveHfTaskId } from "../../../adapters/tasks/hf/hf-catalog.js";
import { HfSuite } from "../../../adapters/tasks/hf/hf-suite.js";
import { HF_TASK_ENTRIES } from "../../../adapters/tasks/hf/hf-task-entries.js";
import { taskTypeOf } from "../../../adapters/tasks/hf/hf-task-entry.js";
import { HF_TASK_TYPES } from "../../../adapters/tasks/hf/hf-task-types.js";
import { TaskRegistry } from "../../../src/tasks/task-registry.js";

describe("hf task catalogue", () => {
  it("has the original's 15 entries, which list as 51 ids (bbeh 23, bbeh_eight 8, bbeh_horizon 8 subtasks; the parents are not tasks)", () => {
    expect(HF_TASK_ENTRIES.map((e) => e.id)).toEqual(["hotpot_qa", "bbeh", "bbeh_eight", "musique", "gsm8k", "arc_challenge", "qasc", "drop", "quality", "qasper", "bbeh_horizon", "aqua_rat", "strategy_qa", "humaneval", "mbpp"]);
    const ids = hfTaskIds();
    expect(ids).toHaveLength(51);
    expect(new Set(ids).size).toBe(51);
    expect(ids.filter((id) => id.startsWith("hf:bbeh/"))).toHaveLength(23);
    expect(ids.filter((id) => id.startsWith("hf:bbeh_eight/"))).toHaveLength(8);
    expect(ids.filter((id) => id.startsWith("hf:bbeh_horizon/"))).toHaveLength(8);
    expect(ids).not.toContain("hf:bbeh");
    expect(ids.slice(0, 3)).toEqual(["hf:hotpot_qa", "hf:bbeh/boardgame_qa", "hf:bbeh/boolean_expressions"]);
    expect(ids[ids.length - 1]).toBe("hf:mbpp");
  });

  it("maps each entry to the original's task semantics (task_type, else agent_class, else hfqa)", () => {
    const types = Object.fromEntries(HF_TASK_ENTRIES.map((e) => [e.id, taskTypeOf(e)]));
    expect(types).toEqual({
      hotpot_qa: "hfqa",
      bbeh: "bbeh",
      bbeh_eight: "bbeh",
      musique: "musique",
      gsm8k: "gsm8k",
      arc_challenge: "mcqa",
      qasc: "mcqa",
      drop: "drop",
      quality: "mcqa",
      qasper: "qasper",
      bbeh_horizon: "bbeh",
      aqua_rat: "mcqa",
      strategy_qa: "strategy_qa",
      humaneval: "code_exec",
      mbpp: "code_exec",
    });
    // Every type has its guide here but code_exec, which the suite builds around its python worker pool.
    for (const type of new Set(Object.values(types))) expect(HF_TASK_TYPES.has(type) || type === "code_exec").toBe(true);
  });

  it("keeps the objectives verbatim, YAML's final newline included, and the optimizer prompt names the trainable variables", () => {
    const hotpot = HF_TASK_ENTRIES.find((e) => e.id === "hotpot_qa")!;
    expect(hotpot.objective).toMatch(/^You are an expert in agent prompt optimization for HotpotQA \(multi-hop reasoning\)\.\n/);
    expect(hotpot.objective).toMatch(/from specific question-answer pairs\.\n$/);
    expect(HF_TASK_ENTRIES.find((e) => e.id === "musique")!.objective).toBe("Optimize the agent's instructions for connected multi-hop reasoning across multiple paragraphs.\n");
    expect(HF_TASK_ENTRIES.every((e) => typeof e.objective === "string" && e.objective.endsWith("\n"))).toBe(true);
  });

  it("resolves subtask ids to their entry and split, and expands a parent to its subtasks in catalogue order", () => {
    expect(resolveHfTaskId("hf:bbeh_eight/dyck_languages")).toMatchObject({ entry: { id: "bbeh_eight" }, subtask: "dyck_languages" });
    expect(resolveHfTaskId("hf:gsm8k")).toMatchObject({ entry: { id: "gsm8k" }, subtask: null });
    expect(resolveHfTaskId("hf:bbeh")).toBeNull();
    expect(resolveHfTaskId("hf:nope")).toBeNull();
    expect(expandHfTaskId("hf:bbeh_eight")).toEqual(["dyck_languages", "geometric_shapes", "linguini", "causal_understanding", "disambiguation_qa", "boolean_expressions", "movie_recommendation", "boardgame_qa"].map((s) => `hf:bbeh_eight/${s}`));
    expect(expandHfTaskId("hf:gsm8k")).toBeNull();
    expect(expandHfTaskId("hf:bbeh/dyck_languages")).toBeNull();
  });

  it("a config's hf:bbeh_horizon becomes its 8 subtasks, each with its own copy of the eval_kwargs, duplicates dropped", () => {
    const registry = new TaskRegistry([new HfSuite({})]);
    const evalKwargs = { num_train: 2 };
    const tasks = registry.expandTasks([
      { id: "hf:bbeh_horizon", eval_kwargs: evalKwargs },
      { id: "hf:bbeh_horizon/web_of_lies", eval_kwargs: { num_train: 2 } },
      { id: "hf:gsm8k", eval_kwargs: {} },
    ]);
    expect(tasks.map((t) => t.id)).toEqual([...expandHfTaskId("hf:bbeh_horizon")!, "hf:gsm8k"]);
    expect(tasks[0]!.eval_kwargs).toEqual(evalKwargs);
    expect(tasks[0]!.eval_kwargs).not.toBe(evalKwargs);
    expect(tasks[0]!.eval_kwargs).not.toBe(tasks[1]!.eval_kwargs);
    expect(registry.unknownTask("hf:bbeh_horizon/web_of_lies")).toBeNull();
    expect(registry.unknownTask("hf:gsm9k")).toContain("hf:gsm8k");
  });
});
