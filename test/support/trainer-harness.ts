/**
 * Runs a trainer outside the engine, with the real trainer context (real optimizers, rollouts and
 * counters) on a scripted or stub LLM, capturing the events it would record.
 */
import type { Kwargs } from "../../src/config/kwargs.js";
import { createTrainerContext } from "../../src/engine/trainer-context.js";
import type { NewEvent } from "../../src/events/event-schema.js";
import type { ChatRequest, Llm } from "../../src/llm/llm.js";
import { negativeAbsoluteError } from "../../adapters/tasks/guides.js";
import { xmlReply, type ScriptStep } from "./scripted-llm.js";
import { shownValues } from "./shown-values.js";
import { initialValues, type ParameterValues } from "../../src/domain/parameter.js";
import type { Trainer, TrainerContext } from "../../src/opt/trainer.js";
import type { TaskBundle } from "../../src/domain/task-bundle.js";
import type { Rng } from "../../src/opt/rng.js";

export interface HarnessRun {
  readonly values: ParameterValues;
  /** IterationCompleted payloads, in order. */
  readonly iterations: Record<string, unknown>[];
  readonly llmCalls: Record<string, unknown>[];
  readonly context: TrainerContext;
}

export interface HarnessOptions {
  readonly kwargs?: Kwargs;
  readonly seed?: number;
  readonly optimizer?: string;
  readonly optimizerKwargs?: Kwargs;
  /** Replaces the seeded RNG (parity tests replay recorded draws). */
  readonly rng?: Rng;
}

export function harnessContext(bundle: TaskBundle, llm: Llm, options: HarnessOptions = {}) {
  const events: NewEvent[] = [];
  const created = createTrainerContext({
    bundle,
    initialValues: initialValues(bundle.parameters),
    trainerKwargs: options.kwargs ?? {},
    seed: options.seed ?? 1,
    optimizer: { name: options.optimizer ?? "OptoPrimeV2", kwargs: { ...(bundle.optimizer_kwargs as Kwargs), ...(options.optimizerKwargs ?? {}) } },
    recorder: { attempt: 1, record: (e) => events.push(...e) },
    llm,
    signal: new AbortController().signal,
    onValues: () => {},
  });
  const context: TrainerContext = options.rng ? { ...created, rng: options.rng } : created;
  return { context, events };
}

export async function runTrainer(trainer: Trainer, bundle: TaskBundle, llm: Llm, options: HarnessOptions = {}): Promise<HarnessRun> {
  const { context, events } = harnessContext(bundle, llm, options);
  const result = await trainer.train(context);
  return {
    values: result.values,
    iterations: events.filter((e) => e.type === "IterationCompleted").map((e) => e.data as Record<string, unknown>),
    llmCalls: events.filter((e) => e.type === "LlmCallCompleted").map((e) => e.data as Record<string, unknown>),
    context,
  };
}

/** Per-step increments of a cumulative counter (`llm_calls`, `evaluations`) of emitted iterations. */
export function perStep(iterations: readonly Record<string, unknown>[], key: "llm_calls" | "evaluations"): number[] {
  return iterations.map((it, i) => (it[key] as number) - (i === 0 ? 0 : (iterations[i - 1]![key] as number)));
}

/** Script steps that record the value of the first variable each proposal was asked about. */
export function recording() {
  const expanded: unknown[] = [];
  const reply =
    (content: string): ScriptStep =>
    (request: ChatRequest) => {
      expanded.push(Object.values(shownValues(request))[0]);
      return content;
    };
  return { expanded, x: (value: number) => reply(xmlReply({ x: value })), raw: reply };
}

/** One number `x`; every example's response is `x` and scores −|x − 3|. */
export function targetBundle(examples = 4): TaskBundle {
  return {
    taskId: "test:target",
    parameters: [{ name: "x", kind: "number", value: 0, description: "A number.", trainable: true }],
    agent: { name: "EchoAgent", run: (_input, values) => values.x },
    guide: negativeAbsoluteError,
    train_dataset: { inputs: Array.from({ length: examples }, (_, i) => i), infos: Array.from({ length: examples }, () => 3) },
    optimizer_kwargs: { objective: "Make x reach the target." },
    metadata: {},
  };
}
