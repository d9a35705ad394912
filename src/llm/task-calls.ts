/**
 * The LLM a task's agent and guide call (the domain's `TaskLlm`), on the job's recorded path: each
 * call goes through the attempt's `JobCalls` like the optimizer's (recorded before it leaves,
 * journaled, budgeted, priced, and rate-limited by the client of its model).
 *
 * Examples of a batch may run concurrently, so the order their calls leave in is not the job's
 * order. Each call gets a slot instead: `batch/example/call`, the n-th batch of examples the
 * attempt scored (evaluations and training rollouts alike, numbered as they start), the example's
 * index in it, and the example's own count of calls. The same job asks the same thing at the same
 * slot at any concurrency, and a resumed job's journal answers by slot.
 */
import type { TaskLlm, TaskLlmReply, TaskLlmRequest, TaskLlmRole } from "../domain/task-llm.js";
import type { JobCalls } from "./job-calls.js";
import type { Llm } from "./llm.js";

/** The client a task role calls (its model and endpoint: llm.agent, llm.guide, or the stub). */
export type TaskClientFor = (role: TaskLlmRole) => Llm;

/** The TaskLlm of each example of one batch, by the example's index. */
export type ExampleLlms = (example: number) => TaskLlm;

export class TaskCalls {
  private batches = 0;

  constructor(
    private readonly calls: JobCalls,
    private readonly clientFor: TaskClientFor,
    /** Replies come from the stub (mode stub): they say so. */
    private readonly stubAnswers: boolean,
  ) {}

  /** The next batch of examples: its calls end when `signal` aborts. */
  nextBatch(signal?: AbortSignal): ExampleLlms {
    const batch = ++this.batches;
    return (example) => {
      let call = 0;
      return { complete: (request) => this.send(`${batch}/${example}/${call++}`, request, signal) };
    };
  }

  private async send(slot: string, request: TaskLlmRequest, signal: AbortSignal | undefined): Promise<TaskLlmReply> {
    const client = this.clientFor(request.role);
    const { role, ...chat } = request;
    const response = await this.calls.taskCall(client, role, slot, chat, signal);
    return { content: response.content, usage: { prompt_tokens: response.usage.prompt_tokens, completion_tokens: response.usage.completion_tokens, total_tokens: response.usage.total_tokens }, model: response.model, stub: this.stubAnswers };
  }
}
