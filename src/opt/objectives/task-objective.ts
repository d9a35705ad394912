/**
 * A task's own objective (`metadata.objective_config`, e.g. the multi-objective tasks' weighted
 * or Pareto choice from `eval_kwargs.objective_mode`) reaches the trainer as its
 * `objective_config` kwarg, as the original's runner forwards a bundle's `objective_config`; an
 * `objective_config` in the variant's params wins. Not part of the job id (the original's isn't).
 */
import { isKwargs, type Kwargs } from "../../config/kwargs.js";
import type { TaskBundle } from "../../domain/task-bundle.js";

export function withTaskObjective(kwargs: Kwargs, bundle: Pick<TaskBundle, "metadata">): Kwargs {
  const objective = bundle.metadata["objective_config"];
  if (!isKwargs(objective) || Object.hasOwn(kwargs, "objective_config")) return kwargs;
  return { ...kwargs, objective_config: objective };
}
