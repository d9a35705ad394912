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

/**
 * Where code that is not ours (a Python agent, DSPy, a CLI) sends OpenAI-compatible requests: a
 * loopback endpoint served for the job, whose every request takes the same recorded path as
 * `complete`. The real API key never leaves trace-bench: `apiKey` is a secret of this job only.
 */
export interface TaskLlmEndpoint {
  /** `http://127.0.0.1:<port>/<channel>/v1`: what an OpenAI client takes as its base URL. */
  readonly baseUrl: string;
  /** The job's secret, sent as the bearer key (`Authorization: Bearer <apiKey>`); nothing else is accepted. */
  readonly apiKey: string;
  /**
   * The same endpoint on a Unix socket, for code in a sandbox without network (it cannot reach
   * the host's 127.0.0.1): requests to `basePath` on this socket are the same requests.
   */
  readonly socketPath: string;
  /** The path part of `baseUrl` (`/<channel>/v1`). */
  readonly basePath: string;
}

export interface TaskLlm {
  /** Rejects when no reply can be had (budget spent, the endpoint failing, the job interrupted). */
  complete(request: TaskLlmRequest): Promise<TaskLlmReply>;
  /**
   * The loopback endpoint for this example's calls (opened on first use, closed when the job's
   * attempt ends). Absent where the engine serves none.
   */
  endpoint?(): Promise<TaskLlmEndpoint>;
}
