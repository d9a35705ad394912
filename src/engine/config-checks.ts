/**
 * The checks of a config that need no run and no task loaded: the one path behind `validate`
 * (which prints them as `[FAIL]` lines) and `run` (which refuses to start, creating nothing).
 * Unknown keys, trainer ids, each trainer's kwargs (its own names plus the legacy knobs renamed to
 * one of them for it), optimizer, guide and logger names, task ids; with a "did you mean" where a
 * known name is close.
 */
import { canonicalJson } from "../codec/python-json.js";
import type { LoadedConfig } from "../config/run-config.js";
import { didYouMean } from "../config/suggest.js";
import { cliCommand } from "../fs/cli-command.js";
import { GUIDE_NAMES } from "../opt/component-names.js";
import { LLM_JUDGE_NAME, llmJudgeKwargsProblems } from "../opt/guides/llm-judge.js";
import { objectiveConfigProblem, OBJECTIVE_CONFIG_KWARG, objectiveTrainersHint } from "../opt/objectives/objective-config-check.js";
import { OPTIMIZER_NAMES, optimizerKwargsProblems } from "../opt/optimizers/optimizer-registry.js";
import { pythonHarnessNotes } from "../opt/python-harness-notes.js";
import { acceptedTrainerKwargs, findTrainer, TRAINER_CATALOG, TRAINER_ALIASES } from "../opt/trainer-catalog.js";
import type { TaskRegistry } from "../tasks/task-registry.js";
import { loggerProblem } from "./trainer-loggers.js";

export interface ConfigProblem {
  /** `file:line` of the key at fault (`file` alone when lines are unknown). */
  readonly where: string;
  /** One line: what is wrong and the fix, without the location. */
  readonly text: string;
}

export interface CheckOptions {
  /**
   * The deep checks (`validate --strict` and `run`): unknown config keys, trainer kwargs, and
   * optimizer, guide and logger names. Without: trainer ids only.
   */
  readonly strict: boolean;
  /** Also refuse unknown task ids (`run`; `validate` loads each task and reports it there). */
  readonly tasks: boolean;
}

const quoted = (names: readonly string[]) => names.join(", ");

/**
 * The harness hands trainers the task's splits itself (its `validate_dataset` keyword is what
 * GEPA-UCB cannot take: parity scenario gepa-code; UCBSearchAlgorithm's `validation_dataset` the
 * harness never sets), so these are never trainer params.
 */
const DATASET_KWARGS: readonly string[] = ["train_dataset", "validate_dataset", "test_dataset", "validation_dataset"];

/** A trainer kwarg that is set at the top level (`trainer_kwargs:` or a legacy knob) applies to every trainer. */
function isGlobal(loaded: LoadedConfig, key: string, value: unknown): boolean {
  const global = loaded.config.trainer_kwargs;
  return Object.hasOwn(global, key) && canonicalJson(global[key]) === canonicalJson(value);
}

export async function configProblems(loaded: LoadedConfig, registry: TaskRegistry, options: CheckOptions): Promise<ConfigProblem[]> {
  const { config, locate } = loaded;
  const problems: ConfigProblem[] = [];
  const add = (path: readonly PropertyKey[], text: string) => problems.push({ where: locate(path), text });

  if (options.strict) {
    for (const line of loaded.unknownKeys) {
      // The line already starts with its location.
      const at = line.indexOf(": ");
      problems.push({ where: line.slice(0, at), text: `${line.slice(at + 2)}; fix or remove it ('${cliCommand("schema")}' lists the keys)` });
    }
  }

  const trainerIds = [...TRAINER_CATALOG.map((t) => t.id), ...Object.keys(TRAINER_ALIASES)];
  /** Top-level kwargs: fine when some trainer of the config takes them. */
  const globalKeys = new Map<string, boolean>();
  for (const [i, trainer] of config.trainers.entries()) {
    const path = ["trainers", i];
    const info = findTrainer(trainer.id);
    if (info === undefined) {
      const near = didYouMean(trainer.id, trainerIds);
      add(path, `trainer ${trainer.id}: unknown trainer${near}${near === "" ? ";" : ""} run '${cliCommand("list-trainers --all")}' for the known ids`);
      continue;
    }
    if (!info.available) add(path, `trainer ${trainer.id}: not available (${info.reason})`);
    if (!options.strict) continue;
    const accepted = await acceptedTrainerKwargs(info, trainer.id);
    const reported = new Set<string>();
    for (const [v, variant] of trainer.params_variants.entries()) {
      for (const [key, value] of Object.entries(variant)) {
        if (key === OBJECTIVE_CONFIG_KWARG) {
          // Refused by name, never ignored: a trainer without objective selection would silently optimize the mean score.
          const trouble = accepted.includes(key) ? objectiveConfigProblem(value) : `trainer ${trainer.id} does not support ${key}; ${await objectiveTrainersHint()}`;
          if (trouble !== null && !reported.has(key)) {
            reported.add(key);
            add([...path, "params_variants", v, key], trouble);
          }
          continue;
        }
        if (accepted.includes(key)) {
          if (isGlobal(loaded, key, value)) globalKeys.set(key, true);
          continue;
        }
        if (isGlobal(loaded, key, value)) {
          if (!globalKeys.has(key)) globalKeys.set(key, false);
          continue;
        }
        if (reported.has(key)) continue;
        reported.add(key);
        const hint = DATASET_KWARGS.includes(key) ? ": datasets come from the task, not from trainer params" : didYouMean(key, accepted);
        add([...path, "params_variants", v, key], `unknown trainer kwarg '${key}' for ${trainer.id}${hint} (valid: ${quoted(accepted)})`);
      }
    }
    if (trainer.optimizer !== null && !OPTIMIZER_NAMES.includes(trainer.optimizer)) {
      add([...path, "optimizer"], `optimizer not found: ${trainer.optimizer}${didYouMean(trainer.optimizer, OPTIMIZER_NAMES)} (known: ${quoted(OPTIMIZER_NAMES)})`);
    }
    if (trainer.optimizer !== null) for (const p of optimizerKwargsProblems(trainer.optimizer, trainer.optimizer_kwargs)) add([...path, "optimizer_kwargs", p.key], `optimizer_kwargs.${p.key}: ${p.text}`);
    if (trainer.guide !== null && !(GUIDE_NAMES as readonly string[]).includes(trainer.guide)) {
      add([...path, "guide"], `guide not found: ${trainer.guide}${didYouMean(trainer.guide, GUIDE_NAMES)} (known: ${quoted(GUIDE_NAMES)})`);
    }
    if (trainer.guide === LLM_JUDGE_NAME) for (const p of llmJudgeKwargsProblems(trainer.guide_kwargs)) add([...path, "guide_kwargs", p.key], `guide_kwargs.${p.key}: ${p.text}`);
    const loggerTrouble = trainer.logger === null ? null : loggerProblem(trainer.logger);
    if (loggerTrouble !== null) add([...path, "logger"], loggerTrouble);
  }
  for (const [key, someTrainerTakesIt] of globalKeys) {
    if (someTrainerTakesIt) continue;
    // In trainer_kwargs when it is written there, else a top-level knob.
    const path = locate(["trainer_kwargs", key]) !== locate(["trainer_kwargs"]) ? ["trainer_kwargs", key] : [key];
    add(path, `trainer kwarg '${key}' (set for every trainer) is taken by none of this config's trainers (${config.trainers.map((t) => t.id).join(", ")}); fix or remove it`);
  }

  if (options.tasks) {
    for (const [i, task] of config.tasks.entries()) {
      const why = registry.unknownTask(task.id);
      if (why !== null) add(["tasks", i], `${why}`);
    }
  }
  return problems;
}

/**
 * Task ids that name something outside their suite's root: a config error for every verb (exit 2),
 * found before any task is loaded, so nothing there is ever imported.
 */
export function tasksOutsideRoots(loaded: LoadedConfig, registry: TaskRegistry): ConfigProblem[] {
  return loaded.config.tasks.flatMap((task, i) => {
    const why = registry.outsideRoot(task.id);
    return why === null ? [] : [{ where: loaded.locate(["tasks", i]), text: why }];
  });
}

/**
 * Notes, not failures: where a trainer's params make a job the pinned Python harness would run
 * differently (kwargs it ignores, names it resolves to another algorithm), once per trainer and key.
 */
export function comparabilityNotes(loaded: LoadedConfig): ConfigProblem[] {
  const notes: ConfigProblem[] = [];
  for (const [i, trainer] of loaded.config.trainers.entries()) {
    const id = findTrainer(trainer.id)?.id ?? trainer.id;
    const seen = new Set<string | null>();
    const variants = trainer.params_variants.length > 0 ? trainer.params_variants : [{}];
    for (const [v, variant] of variants.entries()) {
      for (const note of pythonHarnessNotes(id, variant)) {
        if (seen.has(note.key)) continue;
        seen.add(note.key);
        const path = note.key === null ? ["trainers", i] : ["trainers", i, "params_variants", v, note.key];
        notes.push({ where: loaded.locate(path), text: note.text });
      }
    }
  }
  return notes;
}
