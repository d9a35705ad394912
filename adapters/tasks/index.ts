/** The task suites this build ships, plus any suites named in TRACE_BENCH_TASK_MODULES. */
import { delimiter, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { TaskRegistry } from "../../src/tasks/task-registry.js";
import type { TaskSuite } from "../../src/tasks/task-suite.js";
import { TaskModuleError } from "../../src/tasks/task-errors.js";
import { codeParamTask } from "./internal/code-param.js";
import { multiParamTask } from "./internal/multi-param.js";
import { multiobjectiveBbehTask } from "./internal/multiobjective-bbeh.js";
import { multiobjectiveConvexTask } from "./internal/multiobjective-convex.js";
import { multiobjectiveGsm8kTask } from "./internal/multiobjective-gsm8k.js";
import { pythonPalRunner } from "./internal/pal-runner.js";
import { nonTrainableTask } from "./internal/non-trainable.js";
import { numericParamTask } from "./internal/numeric-param.js";
import { JsSandbox } from "../sandbox/js-sandbox.js";
import { sandboxMode } from "../sandbox/sandbox-mode.js";
import { bundledLlm4adRoot, Llm4adSuite } from "./llm4ad/llm4ad-suite.js";
import { HfSuite } from "./hf/hf-suite.js";
import { VeribenchSuite } from "./veribench/veribench-suite.js";
import { KernelBenchSuite } from "./kernelbench/kernelbench-suite.js";
import { TerminalBenchSuite } from "./terminal_bench/terminal-bench-suite.js";
import { staticSuite } from "./static-suite.js";
import { greetingStubTask } from "./trace_examples/greeting-stub.js";
import { trainSingleNodeStubTask } from "./trace_examples/train-single-node-stub.js";
import { opentraceGreetingTask } from "./trace_examples/opentrace-greeting.js";
import { opentraceTrainSingleNodeTask } from "./trace_examples/opentrace-train-single-node.js";

export interface TaskRegistryOptions {
  /** Tasks root (`--root`): LLM4AD tasks, or a KernelBench checkout; default: the tasks bundled in benchmarks/. */
  readonly root?: string;
}

export function builtinSuites(options: TaskRegistryOptions = {}): TaskSuite[] {
  // Trainable JavaScript runs in this sandbox's worker processes, never in the engine.
  const js = new JsSandbox();
  // PAL programs (internal:multiobjective_bbeh) run in python3 workers, started on the first one.
  const pal = pythonPalRunner();
  return [
    new Llm4adSuite(options.root ?? bundledLlm4adRoot()),
    staticSuite(
      "trace_examples",
      {
        greeting_stub: () => greetingStubTask(js),
        train_single_node_stub: () => trainSingleNodeStubTask(js),
        opentrace_greeting: () => opentraceGreetingTask(js),
        opentrace_train_single_node: () => opentraceTrainSingleNodeTask(js),
      },
      () => js.close(),
    ),
    staticSuite(
      "internal",
      {
        code_param: codeParamTask,
        numeric_param: () => numericParamTask(js),
        multi_param: multiParamTask,
        non_trainable: nonTrainableTask,
        multiobjective_convex: multiobjectiveConvexTask,
        multiobjective_bbeh: (evalKwargs) => multiobjectiveBbehTask(pal, evalKwargs),
        multiobjective_gsm8k: multiobjectiveGsm8kTask,
      },
      () => {
        js.close();
        pal.close();
      },
    ),
    new VeribenchSuite(),
    new HfSuite(),
    new TerminalBenchSuite(),
    // `--root` is shared: a KernelBench checkout there lists its problems instead of the shipped ones.
    new KernelBenchSuite(options.root),
  ];
}

export function builtinTaskRegistry(options: TaskRegistryOptions = {}): TaskRegistry {
  return new TaskRegistry(builtinSuites(options));
}

/**
 * Task suites of your own: `TRACE_BENCH_TASK_MODULES` lists JavaScript modules (separated like
 * PATH) whose default export is a `TaskSuite` or a function returning one.
 *
 * Each registry gets suites of its own (a worker builds one per run: each run's `configure` and
 * `close` must not reach another's). A function is called again; a module that exports a suite
 * object is evaluated again for each registry after its first (imported under another URL: an ES
 * module instance per load), so its top-level state is the registry's own. What it imports in turn
 * is shared, as modules are, and a CommonJS module cannot be evaluated twice: it exports one
 * object for the process (export a function to be safe). Each instance stays loaded for the
 * process's life (Node never unloads a module): a few KB per run on a long-lived worker.
 */
/** Suite objects exported by task modules that a registry holds already. */
const handedOut = new WeakSet<object>();
let moduleInstances = 0;

export async function loadTaskRegistry(options: TaskRegistryOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<TaskRegistry> {
  // A misspelled sandbox setting is refused before anything is planned, not found at a job's first evaluation.
  sandboxMode(env);
  const paths = (env.TRACE_BENCH_TASK_MODULES ?? "").split(delimiter).filter((p) => p.trim() !== "");
  const extra: TaskSuite[] = [];
  for (const path of paths) {
    let loaded: { default?: unknown };
    try {
      const href = pathToFileURL(resolve(path)).href;
      loaded = (await import(href)) as { default?: unknown };
      // An object another registry has already: this registry's own instance of the module.
      if (typeof loaded.default === "object" && loaded.default !== null && handedOut.has(loaded.default)) {
        loaded = (await import(`${href}?trace-bench-instance=${(moduleInstances += 1)}`)) as { default?: unknown };
      }
    } catch (error) {
      const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new TaskModuleError({ path, problem: `cannot load '${path}': ${why}` });
    }
    const exported = typeof loaded.default === "function" ? (loaded.default as () => unknown)() : loaded.default;
    const suite = exported as Partial<TaskSuite> | undefined;
    if (typeof suite?.name !== "string" || typeof suite.list !== "function" || typeof suite.load !== "function") {
      throw new TaskModuleError({ path, problem: `'${path}' must default-export a task suite {name, list(), load()}` });
    }
    if (typeof loaded.default === "object" && loaded.default !== null) handedOut.add(loaded.default);
    extra.push(suite as TaskSuite);
  }
  return new TaskRegistry([...builtinSuites(options), ...extra]);
}
