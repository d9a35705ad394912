/**
 * The HuggingFace QA suite (`hf:*`): the 51 tasks of the original's hf_tasks.yaml, read from
 * local files (a data directory or the hub cache: see hf-data-files.ts), with the original's row
 * shaping, guides and agents. Agents call the model only through the engine's `context.llm`.
 * A dataset that is not on this machine makes its jobs `skipped`, saying where it was looked for.
 */
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import type { Kwargs } from "../../../src/config/kwargs.js";
import type { Agent } from "../../../src/domain/agent.js";
import type { ParameterSpec } from "../../../src/domain/parameter.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { TaskNotFoundError, TaskUnavailableError } from "../../../src/tasks/task-errors.js";
import type { TaskSuite } from "../../../src/tasks/task-suite.js";
import { bbehAgent, bbehParameters } from "./bbeh-agent.js";
import { codeAgent, codeParameters } from "./code-agent.js";
import { codeExecType, DEFAULT_CODE_TIMEOUT_S } from "./code-exec.js";
import { pythonCodeRunner, type CodeRunner } from "./code-runner.js";
import { expandHfTaskId, hfTaskIds, resolveHfTaskId } from "./hf-catalog.js";
import { loadPartitions } from "./hf-partitions.js";
import { replyText } from "./hf-reply-text.js";
import { agentClassOf, taskTypeOf, type HfTaskEntry } from "./hf-task-entry.js";
import { HF_TASK_TYPES } from "./hf-task-types.js";
import { DEFAULT_INSTRUCTIONS, hotpotAgent, hotpotParameters } from "./hotpot-agent.js";
import { dspyUnavailableReason } from "./dspy-framework.js";
import { dspyAgent, dspyParameters } from "./dspy-agent.js";
import { pythonAgentRunner, type PythonAgentRunner } from "../../sandbox/python-agent-runner.js";

const DEFAULT_OBJECTIVE = "Optimize the agent's instructions for this QA task.";

/** A dataset size: eval_kwargs, else the catalogue, else the original's default; a non-negative integer. */
function resolveCount(name: string, override: unknown, entry: HfTaskEntry, fallback: number): number {
  const fromEntry = (entry as unknown as Record<string, unknown>)[name];
  const value = override !== undefined && override !== null ? override : (fromEntry ?? fallback);
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new Error(`eval_kwargs.${name} must be a non-negative integer, got ${JSON.stringify(value)}; write e.g. ${name}: 10`);
  }
  return value;
}

function dataDirOf(evalKwargs: Kwargs, env: NodeJS.ProcessEnv): string | null {
  const fromKwargs = evalKwargs.data_dir;
  if (fromKwargs !== undefined && fromKwargs !== null) {
    if (typeof fromKwargs !== "string" || fromKwargs.trim() === "") throw new Error(`eval_kwargs.data_dir must be a folder path, got ${JSON.stringify(fromKwargs)}`);
    return resolve(fromKwargs);
  }
  return env.TRACE_BENCH_HF_DATA_DIR ? resolve(env.TRACE_BENCH_HF_DATA_DIR) : null;
}

function initialInstructions(evalKwargs: Kwargs): string {
  const given = evalKwargs.initial_instructions;
  return typeof given === "string" && given !== DEFAULT_INSTRUCTIONS ? given : DEFAULT_INSTRUCTIONS;
}

/** The original's DSPy agent for the entry's agent class (code tasks have none: a Trace agent only, as there). */
function dspyAgentFor(taskId: string, entry: HfTaskEntry, evalKwargs: Kwargs, runner: () => PythonAgentRunner): { agent: Agent; parameters: ParameterSpec[] } {
  const agentClass = agentClassOf(entry);
  if (agentClass === "code") throw new Error(`${taskId}: code-synthesis tasks have a Trace agent only; run them with framework: trace (the default)`);
  const kind = agentClass === "bbeh" ? "bbeh" : "hfqa";
  return { agent: dspyAgent(kind, runner), parameters: dspyParameters(kind, initialInstructions(evalKwargs)) };
}

function agentFor(entry: HfTaskEntry, evalKwargs: Kwargs, runner: () => CodeRunner): { agent: Agent; parameters: ParameterSpec[] } {
  const agentClass = agentClassOf(entry);
  if (agentClass === "bbeh") return { agent: bbehAgent(runner()), parameters: bbehParameters() };
  if (agentClass === "code") return { agent: codeAgent, parameters: codeParameters() };
  return { agent: hotpotAgent, parameters: hotpotParameters(initialInstructions(evalKwargs), entry.description) };
}

/**
 * What mode stub's LLM may propose for the HotpotQA-style agent's instructions (it writes no text
 * of its own), so stub runs of these tasks search: the initial instructions and two others.
 */
function hotpotStubAlternatives(parameters: readonly ParameterSpec[]): TaskBundle["stubAlternatives"] {
  const instructions = parameters.find((p) => p.name === "meta_instructions");
  if (instructions === undefined || typeof instructions.value !== "string") return undefined;
  return { meta_instructions: [instructions.value, "Find the sentences that answer the question, then give only the answer.", "Reason over every paragraph step by step; answer in a few words."] };
}

export class HfSuite implements TaskSuite {
  readonly name = "hf";
  private readonly ids = hfTaskIds();
  private runner: CodeRunner | null = null;
  private agentRunner: PythonAgentRunner | null = null;
  private workers = availableParallelism();

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  /** The python workers that run code candidates' unit tests, started on the first candidate. */
  private codeRunner(): CodeRunner {
    this.runner ??= pythonCodeRunner(() => this.workers);
    return this.runner;
  }

  /** The python workers that run DSPy programs (framework dspy), started on the first example. */
  private pythonAgents(): PythonAgentRunner {
    this.agentRunner ??= pythonAgentRunner(() => this.workers);
    return this.agentRunner;
  }

  configure(settings: { readonly workers?: number }): void {
    this.workers = settings.workers ?? this.workers;
  }

  close(): void {
    this.runner?.close();
    this.runner = null;
    this.agentRunner?.close();
    this.agentRunner = null;
  }

  list(): readonly string[] {
    return this.ids;
  }

  knows(taskId: string): boolean {
    return resolveHfTaskId(taskId) !== null;
  }

  /** `hf:bbeh` and the other entries with subtasks stand for all their subtasks. */
  expand(taskId: string): string[] | null {
    return expandHfTaskId(taskId);
  }

  async load(taskId: string, evalKwargs: Kwargs): Promise<TaskBundle> {
    const ref = resolveHfTaskId(taskId);
    if (ref === null) {
      const many = expandHfTaskId(taskId);
      const why = many ? `it stands for its ${many.length} subtasks (${many[0]}, ...), each a task of its own` : "run 'trace-bench list-tasks --bench hf' for the hf tasks";
      throw new TaskNotFoundError({ taskId, reason: `unknown hf task '${taskId}': ${why}` });
    }
    const { entry, subtask } = ref;
    const framework = evalKwargs.framework ?? "trace";
    if (framework === "dspy") {
      const missing = dspyUnavailableReason(this.env);
      if (missing !== null) throw new TaskUnavailableError({ taskId, reason: missing });
    } else if (framework !== "trace") throw new Error(`eval_kwargs.framework must be 'trace' or 'dspy', got ${JSON.stringify(framework)}`);
    const taskTypeKey = taskTypeOf(entry);
    const taskType = taskTypeKey === "code_exec" ? codeExecType(this.codeRunner(), entry.timeout ?? DEFAULT_CODE_TIMEOUT_S) : HF_TASK_TYPES.get(taskTypeKey);
    const numTrain = resolveCount("num_train", evalKwargs.num_train, entry, 10);
    const numValidate = resolveCount("num_validate", evalKwargs.num_validate, entry, 0);
    const numTest = resolveCount("num_test", evalKwargs.num_test, entry, 0);
    const { agent, parameters } = framework === "dspy" ? dspyAgentFor(taskId, entry, evalKwargs, () => this.pythonAgents()) : agentFor(entry, evalKwargs, () => this.codeRunner());
    if (taskType === undefined) throw new TaskUnavailableError({ taskId, reason: `task type '${taskTypeKey}' is not built in this version` });

    const trainSplit = subtask ?? entry.train_split ?? entry.split ?? "train";
    const testSplit = subtask ?? entry.test_split ?? trainSplit;
    const partitions = await loadPartitions({ taskId, entry, taskType, dataDir: dataDirOf(evalKwargs, this.env), env: this.env }, [
      { name: "train", split: trainSplit, count: numTrain },
      { name: "validate", split: trainSplit, count: numValidate },
      { name: "test", split: testSplit, count: numTest },
    ]);

    const stubAlternatives = hotpotStubAlternatives(parameters);
    return {
      taskId,
      parameters,
      agent,
      ...(stubAlternatives !== undefined ? { stubAlternatives } : {}),
      guide: {
        name: taskType.guideName,
        evaluate: (input, response, info, context) => taskType.score(input, replyText(response), info, context),
      },
      train_dataset: taskType.makeDataset(partitions.train),
      ...(partitions.validate.length > 0 ? { validate_dataset: taskType.makeDataset(partitions.validate) } : {}),
      ...(partitions.test.length > 0 ? { test_dataset: taskType.makeDataset(partitions.test) } : {}),
      optimizer_kwargs: { objective: entry.objective ?? DEFAULT_OBJECTIVE, memory_size: 10 },
      metadata: {
        benchmark: "hf",
        task_id: entry.id,
        subtask,
        dataset_id: entry.dataset_id,
        task_type: taskTypeKey,
        dataset_config: entry.dataset_config ?? null,
        num_train: numTrain,
        num_validate: numValidate,
        num_test: numTest,
        train_split: trainSplit,
        validate_split: trainSplit,
        test_split: testSplit,
        framework,
      },
    };
  }
}
