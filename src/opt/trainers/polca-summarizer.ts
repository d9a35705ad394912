/**
 * POLCA's summarizer (the original's `opto.trainer.summarizer.Summarizer`): once per proposing
 * iteration it picks up to 5 candidates not summarized before that have scored rollouts (a random
 * sample), shows for each its parameter values with one random successful rollout (score >
 * success threshold, 0 by default) and one random failed one, each as a markdown trajectory, and
 * asks the LLM (role `summarizer`) to merge them with the current summary into a new one between
 * `<summary>` tags. The prompts are the original's.
 */
import { pythonNumberRepr } from "../../codec/python-json.js";
import type { ChatRequest, ChatResponse } from "../../llm/llm.js";
import type { Rng } from "../rng.js";
import type { Rollout } from "../rollout.js";
import { pythonRepr } from "../../codec/python-repr.js";
import type { SearchCandidate } from "./priority-search-memory.js";

export const SUMMARY_PREFIX = "Concrete recommendations for generating better agent parameters based on successful patterns observed in the trajectories: ";

export const SUMMARIZER_SYSTEM_PROMPT = "You are an expert at analyzing agent behavior patterns and providing actionable guidance for parameter optimization.";

export const SUMMARIZER_USER_TEMPLATE = `Analyze the following agent conversation trajectories and extract insights for optimization.

        Current Summary (from previous analysis):
        {current_summary}

        New Trajectories to Analyze:
        {history_trajectories}

        Instructions:
        - Review both the Current Summary and the New Trajectories
        - Synthesize ALL insights into a single, cohesive summary
        - Integrate new patterns with existing knowledge
        - Reorganize and consolidate information as needed for clarity
        - DO NOT use incremental language like "[Previous points remain valid, plus:]"
        - Generate a complete, standalone summary that incorporates everything

        Provide your analysis in XML format:
        <reasoning>
        Analyze the key patterns and strategies that led to success or failure in these trajectories. Consider both the current summary and new trajectories.
        </reasoning>
        <summary>
        A complete, consolidated summary with concrete recommendations for generating better results. This should be a standalone summary that integrates insights from both the current summary and new trajectories, without using incremental modification language.
        </summary>`;

/** What the original returns, without calling the LLM, when no candidate is left to summarize. */
export const NO_TRAJECTORIES = "No trajectories found for the memory.";

/** The most candidates shown in one summary request (the original's hard-coded 5). */
const CANDIDATES_PER_SUMMARY = 5;

/**
 * A completion limit for the summary request (the original sends none): a budgeted job can only
 * admit requests with one, and a summary with its reasoning fits well within it.
 */
export const SUMMARY_MAX_TOKENS = 4096;

/** Python's str() of a value: text as it is, anything else as its repr. */
const pythonStr = (value: unknown): string => (typeof value === "string" ? value : pythonRepr(value));

/** One rollout as the original's markdown trajectory. */
export function trajectoryOf(values: Readonly<Record<string, unknown>>, rollout: Rollout): string {
  const score = rollout.score === null ? "None" : pythonNumberRepr(rollout.score);
  const breakdown = rollout.scores !== undefined && Object.keys(rollout.scores).length > 0 ? rollout.scores : null;
  const result =
    breakdown === null
      ? `- **Score:** ${score}\n- **Feedback:** ${rollout.feedback}`
      : `- **Overall Score:** ${score}\n- **Score Breakdown:**\n${Object.entries(breakdown)
          .map(([k, v]) => `  - ${k}: ${pythonNumberRepr(v)}`)
          .join("\n")}\n- **Feedback:** ${rollout.feedback}`;
  return `## Task Trajectory\n\n## Module Parameters\n${pythonRepr(values)}\n\n## Input \n${pythonStr(rollout.input)}\n\n## Output\n${pythonStr(rollout.response)}\n\n## Result\n${result}`;
}

function scored(candidate: SearchCandidate): Rollout[] {
  return (candidate.rollouts ?? []).filter((r) => r.score !== null);
}

/** `k` distinct items of `items`, drawn at random (Python's random.sample). */
function sample<T>(items: readonly T[], k: number, rng: Rng): T[] {
  const pool = [...items];
  const out: T[] = [];
  for (let i = 0; i < k && pool.length > 0; i++) out.push(pool.splice(rng.int(pool.length), 1)[0]!);
  return out;
}

export class Summarizer {
  /** The summary so far (the original's `current_summary`, which starts as the bare prefix). */
  currentSummary = SUMMARY_PREFIX;
  private readonly used = new Set<number>();

  constructor(
    private readonly rng: Rng,
    private readonly successThreshold = 0,
  ) {}

  /** The trajectories of up to 5 candidates not summarized before; they are marked used. */
  trajectories(pool: readonly SearchCandidate[]): string {
    const fresh = pool.filter((c, i) => scored(c).length > 0 && !this.used.has(c.id) && pool.findIndex((o) => o.id === c.id) === i);
    const chosen = sample(fresh, Math.min(CANDIDATES_PER_SUMMARY, fresh.length), this.rng);
    for (const c of chosen) this.used.add(c.id);
    return chosen
      .map((c) => {
        const rollouts = scored(c);
        let text = `Candidate pamameters: dict_values([${Object.values(c.values).map(pythonRepr).join(", ")}]).`;
        const successful = rollouts.filter((r) => r.score! > this.successThreshold);
        const failed = rollouts.filter((r) => r.score! <= this.successThreshold);
        if (successful.length > 0) text += `\nSuccessful trajectory: ${trajectoryOf(c.values, successful[this.rng.int(successful.length)]!)}.`;
        if (failed.length > 0) text += `\nFailed trajectory: ${trajectoryOf(c.values, failed[this.rng.int(failed.length)]!)}.`;
        return text;
      })
      .join("\n");
  }

  /** The request for these trajectories. */
  request(trajectories: string): ChatRequest {
    const user = SUMMARIZER_USER_TEMPLATE.replace("{current_summary}", () => this.currentSummary).replace("{history_trajectories}", () => trajectories);
    return {
      messages: [
        { role: "system", content: SUMMARIZER_SYSTEM_PROMPT },
        { role: "user", content: user },
      ],
      maxTokens: SUMMARY_MAX_TOKENS,
    };
  }

  /**
   * The new summary of `pool`'s unseen candidates; NO_TRAJECTORIES (no call) when there are none.
   * Rejects when the call fails or the reply has no `<summary>` (the summary then stays as it was).
   */
  async summarize(pool: readonly SearchCandidate[], chat: (request: ChatRequest) => Promise<ChatResponse>): Promise<string> {
    const trajectories = this.trajectories(pool);
    if (trajectories.length === 0) return NO_TRAJECTORIES;
    const reply = await chat(this.request(trajectories));
    const match = /<summary>([\s\S]*?)<\/summary>/.exec(reply.content);
    if (match === null) throw new Error("the summarizer's reply has no <summary>…</summary>");
    this.currentSummary = match[1]!.trim();
    return this.currentSummary;
  }
}
