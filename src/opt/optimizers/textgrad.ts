/**
 * TextGrad (algorithms reference §2.5): textual gradient descent over our graph
 * `input → agent(parameters) → output`.
 *
 * Call accounting, per `propose` (P = trainable parameters, i.e. `problem.variables.length`):
 *   1. reduce:   1 call when the feedback is batched over several examples (two or more
 *                `ID [i]:` entries), 0 otherwise. The output node then has one gradient per
 *                example, and TextGrad summarizes several gradients on a node before propagating.
 *   2. backward: 1 call per edge parameter → output, i.e. P calls (the gradient engine).
 *   3. update:   1 call per parameter, i.e. P calls (answer between <IMPROVED_VARIABLE> tags).
 *   Total: 2·P + (batch > 1 ? 1 : 0); no calls at all when P = 0.
 * This matches §3.14 (edges + reduces + #params). Calls run one after another, in that order,
 * parameters in problem order.
 *
 * Errors: an update reply that cannot be read or coerced leaves that parameter out of the update
 * with a note (TextGrad prints and skips); nothing here throws for a bad reply. A failing LLM call
 * (network, abort) propagates, as in every other optimizer. Not replicated: OpenTrace's
 * `.choices` indexing on an already-extracted string (§7 quirk 11) and its json_object request for
 * replies that are tagged text.
 */
import type { Kwargs } from "../../config/kwargs.js";
import type { ChatRequest, Llm } from "../../llm/llm.js";
import type { Optimizer, Proposal } from "../optimizer.js";
import type { JsonValue } from "../../domain/json-value.js";
import type { ProblemInstance } from "../problem.js";
import { coerceValue } from "./coerce-value.js";
import { parseXmlReply } from "./suggestion-parser.js";
import {
  conversation,
  GRADIENT_SYSTEM_PROMPT,
  gradientUserPrompt,
  IMPROVED_CLOSE,
  IMPROVED_OPEN,
  outputRole,
  outputValue,
  REDUCE_SYSTEM_PROMPT,
  reduceUserPrompt,
  roleOf,
  UPDATE_SYSTEM_PROMPT,
  updateUserPrompt,
  type GradientWithContext,
} from "./textgrad-prompts.js";

export const TEXTGRAD_DEFAULT_MAX_TOKENS = 4096;

export interface TextGradOptions {
  readonly objective?: string;
  readonly maxTokens?: number;
}

/** TextGrad's kwargs (objective, max_tokens); unknown ones are ignored. */
export function textGradOptions(kwargs: Kwargs): TextGradOptions {
  return {
    ...(typeof kwargs.objective === "string" && kwargs.objective.trim() !== "" ? { objective: kwargs.objective } : {}),
    ...(typeof kwargs.max_tokens === "number" && kwargs.max_tokens > 0 ? { maxTokens: kwargs.max_tokens } : {}),
  };
}

/**
 * The per-example items of a batched feedback (`ID [0]: ...\nID [1]: ...\n`), each with its
 * `ID [i]:` prefix. Markers count only at line starts and in order (0, 1, 2, ...); a feedback
 * that does not start with `ID [0]:` is one item. Text after the last entry (e.g. a history
 * suffix) stays with the last item.
 */
export function feedbackItems(feedback: string): string[] {
  if (!feedback.startsWith("ID [0]:")) return [feedback.trimEnd()];
  const starts: number[] = [0];
  for (let k = 1; ; k++) {
    const marker = `\nID [${k}]:`;
    const at = feedback.indexOf(marker, starts[starts.length - 1]!);
    if (at < 0) break;
    starts.push(at + 1);
  }
  return starts.map((start, i) => feedback.slice(start, starts[i + 1] ?? feedback.length).trimEnd());
}

export type ImprovedValue = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly problem: string };

/**
 * The new value in an update reply, tolerantly: the text between <IMPROVED_VARIABLE> tags (an
 * unclosed tag runs to the end, as OpenTrace's split does); else an OptoPrimeV2-style
 * `<variable>` block naming this variable (a model answering in another optimizer's format);
 * else, when the reply has no such markup at all, the whole reply as a bare value.
 */
export function parseImprovedVariable(reply: string, name: string): ImprovedValue {
  const open = reply.indexOf(IMPROVED_OPEN);
  if (open >= 0) {
    const rest = reply.slice(open + IMPROVED_OPEN.length);
    const close = rest.indexOf(IMPROVED_CLOSE);
    const inner = (close >= 0 ? rest.slice(0, close) : rest).trim();
    return inner === "" ? { ok: false, problem: `empty ${IMPROVED_OPEN} block` } : { ok: true, value: inner };
  }
  if (/<reasoning>|<variable>/.test(reply)) {
    const proposed = parseXmlReply(reply).suggestion[name];
    return typeof proposed === "string" && proposed !== "" ? { ok: true, value: proposed } : { ok: false, problem: `no ${IMPROVED_OPEN} block and no value for '${name}'` };
  }
  const bare = reply.trim();
  return bare === "" ? { ok: false, problem: "empty reply" } : { ok: true, value: bare };
}

export class TextGradOptimizer implements Optimizer {
  readonly name = "TextGrad";

  constructor(
    private readonly llm: Llm,
    private readonly options: TextGradOptions = {},
  ) {}

  get maxTokens(): number {
    return this.options.maxTokens ?? TEXTGRAD_DEFAULT_MAX_TOKENS;
  }

  /** TextGrad keeps no memory between steps: a fork is a fresh optimizer with the same settings. */
  fork(): TextGradOptimizer {
    return new TextGradOptimizer(this.llm, { ...this.options });
  }

  async propose(problem: ProblemInstance, signal: AbortSignal): Promise<Proposal> {
    const variables = problem.variables;
    if (variables.length === 0) return { update: {}, reply: "", reasoning: "", terminated: false, notes: ["no trainable parameters; nothing to optimize"] };
    const { objective } = this.options;

    // 1. The gradient on the output: the user's feedback, reduced when there are several.
    const items = feedbackItems(problem.feedback);
    const outputGradient = items.length > 1 ? await this.call(REDUCE_SYSTEM_PROMPT, reduceUserPrompt(items), signal) : items[0]!;

    // 2. Backward: one call per edge parameter → output.
    const output = outputValue(problem);
    const grads = new Map<string, GradientWithContext[]>();
    for (const variable of variables) {
      const gradient = await this.call(GRADIENT_SYSTEM_PROMPT, gradientUserPrompt(problem, variable, outputGradient, objective), signal);
      grads.set(variable.name, [{ gradient, context: { conversation: conversation(variable, output), outputRole: outputRole(problem, variable), role: roleOf(variable) } }]);
    }

    // 3. Update: one call per parameter; unreadable answers are skipped with a note.
    const update: Record<string, JsonValue> = {};
    const notes: string[] = [];
    const replies: string[] = [];
    for (const variable of variables) {
      const reply = await this.call(UPDATE_SYSTEM_PROMPT, updateUserPrompt(variable, grads.get(variable.name) ?? [], objective), signal);
      replies.push(`[${variable.name}]\n${reply}`);
      const parsed = parseImprovedVariable(reply, variable.name);
      if (!parsed.ok) {
        notes.push(`${variable.name}: ${parsed.problem}; left unchanged`);
        continue;
      }
      const coerced = coerceValue(variable.kind, parsed.value);
      if (coerced.ok) update[variable.name] = coerced.value;
      else notes.push(`${variable.name}: ${coerced.problem}; left unchanged`);
    }

    const reasoning = [
      ...(items.length > 1 ? [`[reduced feedback]\n${outputGradient}`] : []),
      ...variables.map((v) => `[gradient for ${v.name}]\n${grads.get(v.name)?.[0]?.gradient ?? ""}`),
    ].join("\n\n");
    return { update, reply: replies.join("\n\n"), reasoning, terminated: false, notes };
  }

  private async call(system: string, user: string, signal: AbortSignal): Promise<string> {
    signal.throwIfAborted();
    const request: ChatRequest = {
      messages: [
        { role: "system", content: system },
        { role: "user", content: user },
      ],
      maxTokens: this.maxTokens,
    };
    return (await this.llm.complete(request, signal)).content;
  }
}
