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
 *
 * An example's code that calls an LLM API itself gets the job's loopback endpoint (opened on the
 * first such example, closed with the attempt): its requests take the example's next slots, as
 * its `complete` calls do.
 */
import type { TaskLlm, TaskLlmEndpoint, TaskLlmReply, TaskLlmRequest, TaskLlmRole } from "../domain/task-llm.js";
import type { JobCalls } from "./job-calls.js";
import type { Llm } from "./llm.js";
import { LoopbackEndpoint } from "./loopback-endpoint.js";

/** The client a task role calls (its model and endpoint: llm.agent, llm.guide, or the stub). */
export type TaskClientFor = (role: TaskLlmRole) => Llm;

/** The TaskLlm of each example of one batch, by the example's index. */
export type ExampleLlms = (example: number) => TaskLlm;

export class TaskCalls {
  private batches = 0;
  private endpoint: Promise<LoopbackEndpoint> | null = null;
  private closed = false;

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
      let served: Promise<TaskLlmEndpoint> | null = null;
      const llm: TaskLlm = {
        complete: (request) => this.send(`${batch}/${example}/${call++}`, request, signal),
        endpoint: () => (served ??= this.serve(`b${batch}-e${example}`, llm)),
      };
      return llm;
    };
  }

  /** Stops the loopback endpoint, if one was opened: the attempt has ended. */
  async close(): Promise<void> {
    this.closed = true;
    const opened = this.endpoint;
    this.endpoint = null;
    if (opened !== null) await opened.then((e) => e.close(), () => undefined);
  }

  private async serve(channel: string, llm: TaskLlm): Promise<TaskLlmEndpoint> {
    if (this.closed) throw new Error("the job's loopback endpoint is closed: the attempt has ended");
    this.endpoint ??= LoopbackEndpoint.open();
    const endpoint = await this.endpoint;
    // Closed while it was opening: it never serves.
    if (this.closed) {
      await endpoint.close();
      throw new Error("the job's loopback endpoint is closed: the attempt has ended");
    }
    return endpoint.channel(channel, { complete: llm.complete });
  }

  private async send(slot: string, request: TaskLlmRequest, signal: AbortSignal | undefined): Promise<TaskLlmReply> {
    const client = this.clientFor(request.role);
    const { role, ...chat } = request;
    const response = await this.calls.taskCall(client, role, slot, chat, signal);
    return { content: response.content, usage: { prompt_tokens: response.usage.prompt_tokens, completion_tokens: response.usage.completion_tokens, total_tokens: response.usage.total_tokens }, model: response.model, stub: this.stubAnswers };
  }
}
