/**
 * The LLM a task's agent or guide calls. It goes through the same path as the optimizer's calls
 * (recorded before it leaves, journaled, budgeted, priced, rate-limited); the engine hands it to
 * the task in its `TaskCallContext`. Defined here, not in llm/, because domain/ imports nothing.
 */
export type TaskLlmRole = "agent" | "guide" | "judge" | "summarizer";

export interface TaskLlmMessage {
  readonly role: "system" | "user" | "assistant";
  readonly content: string;
}

export interface TaskLlmRequest {
  /** Who calls, for the audit and `tokens --by role`. */
  readonly role: TaskLlmRole;
  readonly messages: readonly TaskLlmMessage[];
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly responseFormat?: "json_object";
}

export interface TaskLlmReply {
  readonly content: string;
  readonly usage: { readonly prompt_tokens: number; readonly completion_tokens: number; readonly total_tokens: number };
  readonly model: string;
  /** True when the answer came from the stub (mode stub), not from a model. */
  readonly stub: boolean;
}

export interface TaskLlm {
  /** Rejects when no reply can be had (budget spent, the endpoint failing, the job interrupted). */
  complete(request: TaskLlmRequest): Promise<TaskLlmReply>;
}
