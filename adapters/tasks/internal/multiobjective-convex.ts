/**
 * Trace-Bench's internal:multiobjective_convex: one trainable string proposing `x = [x1, x2]` to
 * a Six-Hump Camel environment (six-hump-camel.ts), with two minimized losses. The guide's score
 * is the environment's reward, and stepping it uses an attempt, as in the original; its named
 * scores `base_loss` and `reg_loss` are computed on a copy first (an invalid action: 1e6 each).
 * The initial value is, as in the original, the first line of the environment's first
 * observation ("Function outputs total y = …"), which is not an x, so the initial candidate is
 * invalid (see docs/differences.md). `eval_kwargs`: `objective_mode` (weighted, the default, or
 * pareto) and `seed` (42): the objective the trainers take is in `metadata.objective_config`.
 */
import type { Kwargs } from "../../../src/config/kwargs.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import type { GuideResult } from "../../../src/domain/guide.js";
import { SixHumpCamelEnv } from "./six-hump-camel.js";
import { objectiveModeOf } from "./task-kwargs.js";

const INVALID_LOSS = 1e6;

/** The guide's result for one response, stepping `env`. */
export function convexGuideResult(env: SixHumpCamelEnv, response: unknown): GuideResult {
  const action = String(response);
  const onCopy = env.copy().step(action);
  const scores =
    onCopy.baseLoss === null || onCopy.regLoss === null ? { base_loss: INVALID_LOSS, reg_loss: INVALID_LOSS } : { base_loss: onCopy.baseLoss, reg_loss: onCopy.regLoss };
  const step = env.step(action);
  const feedback = (step.observation === null ? "" : `${step.observation}\n\n`) + step.feedback;
  return { score: step.reward, feedback, scores };
}

export function multiobjectiveConvexTask(evalKwargs: Kwargs): TaskBundle {
  const seed = evalKwargs["seed"] ?? 42;
  if (typeof seed !== "number" || !Number.isSafeInteger(seed) || seed < 0) throw new Error(`eval_kwargs.seed must be a non-negative integer, got ${JSON.stringify(seed)}`);
  const mode = objectiveModeOf(evalKwargs);
  const env = new SixHumpCamelEnv(200, 1.0, seed);
  const initial = env.initialObservation().split("\n")[0]!.trim();
  return {
    taskId: "internal:multiobjective_convex",
    parameters: [{ name: "x", kind: "text", value: initial, description: "Input x into the hidden function to get y.", trainable: true }],
    agent: { name: "ParameterEcho", run: (_input, values) => values["x"] },
    guide: { name: "trace_bench.examples.multiobjective_convex.ConvexRewardGuide", evaluate: (_input, response) => convexGuideResult(env, response) },
    train_dataset: { inputs: [null], infos: [null] },
    optimizer_kwargs: { objective: "Minimize the function by choosing x = [x1, x2].", memory_size: 10 },
    // Points the stub LLM may propose: the two losses conflict across them (x = [0, 0] zeroes the
    // regularizer, x = [0.0898, −0.7126] is near a minimum of f).
    stubAlternatives: { x: [initial, "x = [0.0898, -0.7126]", "x = [0, 0]", "x = [0.5, -0.5]", "x = [-1.2, 0.8]"] },
    metadata: {
      benchmark: "multiobjective",
      entry: "convex_sixhumpcamel",
      objective_mode: mode,
      objective_config: { mode, weights: { base_loss: 1.0, reg_loss: 1.0 }, minimize: ["base_loss", "reg_loss"], seed, tie_break: "weighted" },
    },
  };
}
