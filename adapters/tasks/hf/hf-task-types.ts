/** The task types by key (the original's task-module registry); "hfqa" is HotpotQA's. */
import { bbehType } from "./bbeh.js";
import { dropType } from "./drop.js";
import { gsm8kType } from "./gsm8k.js";
import { hotpotQaType } from "./hotpot-qa.js";
import type { HfTaskType } from "./hf-task-type.js";
import { mcqaType } from "./mcqa.js";
import { musiqueType } from "./musique.js";
import { qasperType } from "./qasper.js";
import { strategyQaType } from "./strategy-qa.js";

export const HF_TASK_TYPES: ReadonlyMap<string, HfTaskType> = new Map(
  [hotpotQaType, bbehType, dropType, gsm8kType, mcqaType, musiqueType, qasperType, strategyQaType].map((t) => [t.key, t]),
);
