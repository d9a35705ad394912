/** The one way an hf agent reaches a model: the engine's audited `context.llm`, role "agent". */
import type { TaskCallContext } from "../../../src/domain/task-call-context.js";
import type { TaskLlmMessage } from "../../../src/domain/task-llm.js";

export async function askAgentLlm(context: TaskCallContext, messages: readonly TaskLlmMessage[]): Promise<string> {
  if (context.llm === undefined) {
    // Never a client of our own: every call must be recorded, journaled and budgeted by the engine.
    throw new Error("this hf agent calls an LLM, and the engine gave it none (context.llm is missing)");
  }
  const reply = await context.llm.complete({ role: "agent", messages });
  return reply.content;
}
