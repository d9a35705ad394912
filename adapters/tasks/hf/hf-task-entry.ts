/** One entry of the hf task catalogue, with the original's field names (hf_tasks.yaml). */
export interface HfTaskEntry {
  /** Used as `hf:<id>` (or `hf:<id>/<subtask>`). */
  readonly id: string;
  /** The HuggingFace dataset, `<org>/<name>`. */
  readonly dataset_id: string;
  readonly dataset_config?: string;
  /** Fallback for train_split and test_split. */
  readonly split?: string;
  /** Where train and validate examples come from (default: `split`, then "train"). */
  readonly train_split?: string;
  /** Where test examples come from (default: train_split); a shared split is sliced disjointly. */
  readonly test_split?: string;
  readonly num_train?: number;
  readonly num_validate?: number;
  readonly num_test?: number;
  readonly question_field: string;
  readonly answer_field: string;
  readonly context_field?: string;
  /** "none", "plain", or a task type's own format ("hotpot_qa", "musique"). */
  readonly context_format: string;
  readonly options_field?: string;
  readonly answer_index_base?: number;
  readonly test_field?: string;
  readonly entry_field?: string;
  readonly setup_field?: string;
  /** Scoring semantics; defaults to agent_class, then "hfqa". */
  readonly task_type?: string;
  /** Agent family: "hfqa" (default; context QA), "bbeh" (question only), "code". */
  readonly agent_class?: string;
  /** Seconds a code candidate's unit tests may run. */
  readonly timeout?: number;
  readonly description?: string;
  readonly objective?: string;
  /** Split names; `hf:<id>` expands to one task per subtask. */
  readonly subtasks?: readonly string[];
}

/** The scoring semantics key: `task_type`, else `agent_class`, else "hfqa". */
export function taskTypeOf(entry: HfTaskEntry): string {
  return entry.task_type ?? entry.agent_class ?? "hfqa";
}

export function agentClassOf(entry: HfTaskEntry): string {
  return entry.agent_class ?? "hfqa";
}
