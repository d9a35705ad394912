/**
 * The VeriBench suite (`veribench:*`): Python programs to translate into Lean 4, one task per row
 * of `allenanie/veribench_with_prompts` read from local files (veribench-data.ts). Ids, the
 * bundle, the keyword guide and the placeholder are the original's fallback adapter's; the Lean
 * compiler guide and the translator agent are opt-in by eval_kwargs:
 * * `guide: keyword` (default) | `lean` (needs `lean` or `lake` on PATH; `timeout_seconds`, default 60);
 * * `agent: direct` (default: the optimizer edits `lean_code`) | `translator` (an LLM writes the code);
 * * `data`: a file or folder of VeriBench rows, instead of TRACE_BENCH_VERIBENCH_DATA or the hub cache.
 * With no data on this machine the suite lists `veribench:smoke_placeholder`, and its tasks are skipped.
 */
import type { Kwargs } from "../../../src/config/kwargs.js";
import type { Agent } from "../../../src/domain/agent.js";
import type { Guide } from "../../../src/domain/guide.js";
import type { JsonValue } from "../../../src/domain/json-value.js";
import type { ParameterSpec } from "../../../src/domain/parameter.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { TaskNotFoundError, TaskUnavailableError } from "../../../src/tasks/task-errors.js";
import type { TaskSuite } from "../../../src/tasks/task-suite.js";
import { directAgent, LEAN_CODE_STUB_ALTERNATIVES, leanCodeParameters } from "./direct-agent.js";
import { keywordGuide } from "./keyword-guide.js";
import { leanCompilerGuide } from "./lean-guide.js";
import { findLeanToolchain, LEAN_INSTALL_HINT } from "./lean-toolchain.js";
import { DEFAULT_ADDITIONAL_INSTRUCTIONS, translatorAgent, translatorParameters } from "./translator-agent.js";
import { indexVeribenchData, locateVeribenchData, readVeribenchRows, VERIBENCH_DATA_ENV, type VeribenchData } from "./veribench-data.js";
import { indexNames, rowIndexOf, type VeribenchIndex } from "./veribench-rows.js";

const PREFIX = "veribench:";
export const VERIBENCH_PLACEHOLDER = "veribench:smoke_placeholder";
export const VERIBENCH_ALL = "veribench:all";
/** The original's reason for skipping the placeholder. */
export const VERIBENCH_UNAVAILABLE = "veribench_unavailable: entrypoint not available (install Veribench or provide task list)";

export const VERIBENCH_OBJECTIVE = "Translate the following Python code into correct Lean 4 code. Produce valid Lean 4 syntax with theorems and proofs.\n\n";
const DEFAULT_LEAN_TIMEOUT_S = 60;

type Discovery = { readonly index: VeribenchIndex } | { readonly why: string };

/** The first `n` code points, as Python's `s[:n]`. */
const firstCodePoints = (text: string, n: number) => [...text].slice(0, n).join("");
const textOf = (value: unknown) => (typeof value === "string" ? value : "");

function choice<T extends string>(evalKwargs: Kwargs, key: string, allowed: readonly T[]): T {
  const value = evalKwargs[key] ?? allowed[0];
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new Error(`eval_kwargs.${key} must be one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

function timeoutOf(evalKwargs: Kwargs): number {
  const value = evalKwargs.timeout_seconds ?? DEFAULT_LEAN_TIMEOUT_S;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) throw new Error(`eval_kwargs.timeout_seconds must be a positive number of seconds, got ${JSON.stringify(value)}; write e.g. timeout_seconds: 60`);
  return value;
}

export class VeribenchSuite implements TaskSuite {
  readonly name = "veribench";
  private location: VeribenchData | null = null;
  private discovered: Discovery | null = null;

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  /** Where TRACE_BENCH_VERIBENCH_DATA (else the hub cache) points, looked up once. */
  private located(): VeribenchData {
    const setting = this.env[VERIBENCH_DATA_ENV] ? { value: this.env[VERIBENCH_DATA_ENV]!, key: VERIBENCH_DATA_ENV } : null;
    this.location ??= locateVeribenchData(setting, this.env);
    return this.location;
  }

  /** The task names there, read once (listing, knowing and expanding ids need them; loading does not). */
  private discovery(): Discovery {
    if (this.discovered !== null) return this.discovered;
    const data = this.located();
    if (data.found === null) this.discovered = { why: data.why };
    else {
      try {
        const index = indexVeribenchData(data.found);
        this.discovered = index.names.length > 0 ? { index } : { why: `${data.from} holds no VeriBench rows` };
      } catch (error) {
        this.discovered = { why: error instanceof Error ? error.message : String(error) };
      }
    }
    return this.discovered;
  }

  list(): readonly string[] {
    const found = this.discovery();
    return "index" in found ? found.index.names.map((name) => `${PREFIX}${name}`) : [VERIBENCH_PLACEHOLDER];
  }

  /** Without data every name is known (and skipped when loaded, as in the original); with data, its names and row numbers. */
  knows(taskId: string): boolean {
    if (!taskId.startsWith(PREFIX)) return false;
    if (taskId === VERIBENCH_PLACEHOLDER || taskId === VERIBENCH_ALL) return true;
    const found = this.discovery();
    return !("index" in found) || rowIndexOf(found.index, taskId.slice(PREFIX.length)) !== null;
  }

  /** `veribench:all`: every discovered task, or the placeholder when there are none. */
  expand(taskId: string): string[] | null {
    if (taskId !== VERIBENCH_ALL) return null;
    return [...this.list()];
  }

  async load(taskId: string, evalKwargs: Kwargs): Promise<TaskBundle> {
    if (!taskId.startsWith(PREFIX)) throw new TaskNotFoundError({ taskId, reason: `'${taskId}' is not a VeriBench task id (veribench:<name>)` });
    const name = taskId.slice(PREFIX.length);
    const agentKind = choice(evalKwargs, "agent", ["direct", "translator"] as const);
    const guideKind = choice(evalKwargs, "guide", ["keyword", "lean"] as const);
    const timeoutSeconds = timeoutOf(evalKwargs);
    if (taskId === VERIBENCH_PLACEHOLDER || taskId === VERIBENCH_ALL) {
      const found = this.discovery();
      throw new TaskUnavailableError({ taskId, reason: "why" in found ? `${VERIBENCH_UNAVAILABLE}; ${found.why}` : VERIBENCH_UNAVAILABLE });
    }

    const data = await this.dataFor(evalKwargs);
    if (data.found === null) throw new TaskUnavailableError({ taskId, reason: `veribench_unavailable: ${data.why}` });
    let rows;
    try {
      rows = await readVeribenchRows(data.found);
    } catch (error) {
      throw new TaskUnavailableError({ taskId, reason: `veribench_unavailable: ${error instanceof Error ? error.message : String(error)}` });
    }
    const at = rowIndexOf(indexNames(rows.map((row) => row.filename)), name);
    if (at === null) throw new TaskUnavailableError({ taskId, reason: `veribench_unavailable: task '${name}' not found in dataset (${rows.length} tasks available)` });
    const row = rows[at]!;

    const pythonCode = textOf(row.code);
    const userQuery = textOf(row.user_query);
    const category = (row.category ?? "unknown") as JsonValue;
    const guide = this.guideFor(taskId, guideKind, timeoutSeconds);
    const { agent, parameters, stubAlternatives } = agentFor(agentKind);
    const taskDescription = firstCodePoints(userQuery !== "" ? userQuery : pythonCode, 800);
    return {
      taskId,
      parameters,
      agent,
      guide,
      train_dataset: { inputs: [userQuery !== "" ? userQuery : pythonCode], infos: [{ python_code: pythonCode, category }] },
      optimizer_kwargs: { objective: VERIBENCH_OBJECTIVE + taskDescription, memory_size: 5 },
      metadata: { benchmark: "veribench", entry: agent.name, task_name: name, category },
      stubAlternatives,
    };
  }

  /** The config's `data` when given, else what discovery found. */
  private async dataFor(evalKwargs: Kwargs): Promise<VeribenchData> {
    const given = evalKwargs.data;
    if (given === undefined || given === null) return this.located();
    if (typeof given !== "string" || given.trim() === "") throw new Error(`eval_kwargs.data must be the path of a .jsonl or .parquet file (or a folder) of VeriBench rows, got ${JSON.stringify(given)}`);
    return locateVeribenchData({ value: given, key: "eval_kwargs.data" }, this.env);
  }

  private guideFor(taskId: string, kind: "keyword" | "lean", timeoutSeconds: number): Guide {
    if (kind === "keyword") return keywordGuide;
    const toolchain = findLeanToolchain(this.env);
    if (toolchain === null) throw new TaskUnavailableError({ taskId, reason: `veribench_unavailable: eval_kwargs.guide is 'lean' but neither 'lean' nor 'lake' is on PATH; ${LEAN_INSTALL_HINT}` });
    return leanCompilerGuide(toolchain, timeoutSeconds, this.env);
  }
}

function agentFor(kind: "direct" | "translator"): { agent: Agent; parameters: ParameterSpec[]; stubAlternatives: Readonly<Record<string, readonly JsonValue[]>> } {
  if (kind === "translator") {
    return {
      agent: translatorAgent,
      parameters: translatorParameters(),
      stubAlternatives: { additional_instructions: [DEFAULT_ADDITIONAL_INSTRUCTIONS, "Translate function by function; state one theorem per Python test and prove it by simp or decide."] },
    };
  }
  return { agent: directAgent, parameters: leanCodeParameters(), stubAlternatives: { lean_code: LEAN_CODE_STUB_ALTERNATIVES } };
}
