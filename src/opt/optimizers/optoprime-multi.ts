/**
 * OptoPrimeMulti (OpenTrace `optoprimemulti.py`, algorithms reference §2.6): OptoPrime's prompt
 * and memory, but each step asks for several candidate replies (generation technique) and keeps
 * one (selection technique), which is then read as an OptoPrime reply. Every generation and
 * selection call goes through the optimizer's LLM, so each is recorded with role `optimizer`.
 *
 * Where this departs from the original (docs/differences.md): the selection calls show the
 * problem instance (OptoPrime's user prompt) as the "Problem", where the original passes its
 * system prompt, which holds the format explanation and not the problem.
 */
import type { ChatMessage, Llm } from "../../llm/llm.js";
import { isLlmError } from "../../llm/llm-error.js";
import type { Optimizer, Proposal } from "../optimizer.js";
import type { ProblemInstance } from "../problem.js";
import { generateCandidates, type AskMany, type MultiCall } from "./optoprime-multi-generation.js";
import type { OptoPrimeMultiOptions } from "./optoprime-multi-options.js";
import { selectCandidate } from "./optoprime-multi-selection.js";
import { DIALECTS, toProposal } from "./prompt-optimizer.js";
import type { MemoryEntry } from "./prompts.js";
import { parseJsonReply } from "./suggestion-parser.js";

const OPTOPRIME = DIALECTS.OptoPrime!;
/** OpenTrace's call_llm default, used by the calls that name no max_tokens (expert list, selection). */
const CALL_MAX_TOKENS = 4096;

export class OptoPrimeMulti implements Optimizer {
  readonly name = "OptoPrimeMulti";
  private readonly memory: MemoryEntry[];

  constructor(
    private readonly llm: Llm,
    private readonly options: OptoPrimeMultiOptions,
    memory: readonly MemoryEntry[] = [],
  ) {
    this.memory = [...memory];
  }

  get objective(): string {
    return this.options.objective ?? OPTOPRIME.defaultObjective;
  }

  /** OptoPrime's messages for a problem with the current memory (exposed for prompt tests). */
  messages(problem: ProblemInstance): ChatMessage[] {
    return [
      { role: "system", content: OPTOPRIME.system },
      { role: "user", content: OPTOPRIME.user(this.objective, problem, this.memory) },
    ];
  }

  fork(): OptoPrimeMulti {
    return new OptoPrimeMulti(this.llm, this.options, this.memory);
  }

  async propose(problem: ProblemInstance, signal: AbortSignal): Promise<Proposal> {
    const [system, user] = this.messages(problem).map((m) => m.content) as [string, string];
    this.remember(problem);
    const failures: string[] = [];
    const ask = this.asker(signal, failures);
    const { options } = this;
    const { candidates, technique } = await generateCandidates(
      {
        system,
        user,
        technique: options.generation,
        count: options.numResponses,
        temperatureMin: options.temperatureMin,
        temperatureMax: options.temperatureMax,
        maxTokens: options.maxTokens ?? OPTOPRIME.defaultMaxTokens,
        ...(options.experts !== undefined ? { experts: options.experts } : {}),
      },
      ask,
    );
    const notes = [
      ...(technique !== options.generation ? [`${options.generation} gave no candidate; fell back to temperature_variation`] : []),
      ...failures.map((f) => `a call failed and gave no candidate: ${f}`),
    ];
    // A candidate that is exactly TERMINATE ends the step with no change, before any selection.
    if (candidates.includes("TERMINATE")) return { update: {}, reply: "TERMINATE", reasoning: "", terminated: true, notes };
    const selection = await selectCandidate(candidates, options.selection, user, ask);
    if (selection.reply === null) return { update: {}, reply: "", reasoning: "", terminated: false, notes: [...notes, "unreadable reply: no candidate reply (every call failed)"] };
    const codeNames = new Set(problem.variables.filter((v) => v.kind === "code").map((v) => v.name));
    const proposal = toProposal(problem, parseJsonReply(selection.reply, codeNames), selection.reply);
    return { ...proposal, notes: [...notes, ...proposal.notes] };
  }

  /**
   * Calls sent together (in order, so the job numbers them the same on every run), each answering
   * its reply or null. A reply the provider could not give is a lost candidate, as in the
   * original; a stopped job, a spent budget or a run-stopping error still ends the step.
   */
  private asker(signal: AbortSignal, failures: string[]): AskMany {
    return (calls) =>
      Promise.all(
        calls.map(async (call: MultiCall) => {
          try {
            const response = await this.llm.complete(
              {
                messages: [
                  { role: "system", content: call.system },
                  { role: "user", content: call.user },
                ],
                maxTokens: call.maxTokens ?? CALL_MAX_TOKENS,
                temperature: call.temperature,
                responseFormat: "json_object",
              },
              signal,
            );
            return response.content;
          } catch (error) {
            if (signal.aborted || !isLlmError(error) || error.kind === "aborted" || error.stopsRun) throw error;
            failures.push(error.message);
            return null;
          }
        }),
      );
  }

  /** As OptoPrime: the step joins the memory after its prompt was built. */
  private remember(problem: ProblemInstance): void {
    const limit = this.options.memorySize ?? OPTOPRIME.defaultMemorySize;
    if (limit <= 0) return;
    this.memory.push({ variables: Object.fromEntries(problem.variables.map((v) => [v.name, v.value])), feedback: problem.feedback });
    while (this.memory.length > limit) this.memory.shift();
  }
}
