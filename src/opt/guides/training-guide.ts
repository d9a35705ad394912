/**
 * The guide training uses. A trainer entry may name a guide (`guide: LLMJudge`, with
 * `guide_kwargs`), as the original hands `opto.trainer.train` a guide name to load: that guide
 * scores the trainer's rollouts, while the job's evaluations keep the task's own guide (the
 * original's runner does the same), so jobs with and without a judge are measured alike.
 */
import { mergeKwargs, toPlain, type Kwargs } from "../../config/kwargs.js";
import type { TaskBundle } from "../../domain/task-bundle.js";
import { createLlmJudge, LLM_JUDGE_NAME, llmJudgeOptions } from "./llm-judge.js";

/** The bundle with the guide the trainer entry names in place of the task's (the same bundle when it names none). */
export function withTrainingGuide(bundle: TaskBundle, guide: string | null, guideKwargs: Kwargs): TaskBundle {
  if (guide !== LLM_JUDGE_NAME) return bundle;
  const kwargs = toPlain(mergeKwargs(bundle.guide_kwargs ?? {}, guideKwargs)) as Kwargs;
  return { ...bundle, guide: createLlmJudge(llmJudgeOptions(kwargs)) };
}
