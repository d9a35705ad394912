/**
 * OptoPrime, OptoPrimeV2, OPRO and OPROv2: one LLM call per proposal, differing only in how the
 * problem is written (prompts.ts) and how the reply is read (suggestion-parser.ts).
 */
import type { Kwargs } from "../../config/kwargs.js";
import type { ChatMessage, Llm } from "../../llm/llm.js";
import type { Optimizer, Proposal } from "../optimizer.js";
import type { JsonValue } from "../../domain/json-value.js";
import { parameterOf, type ProblemInstance } from "../problem.js";
import { coerceValue } from "./coerce-value.js";
import {
  JSON_OUTPUT_FORMAT,
  OPRO_V2_OUTPUT_FORMAT,
  OPRO_V2_REPRESENTATION,
  oproUserPrompt,
  oproV2UserPrompt,
  V1_REPRESENTATION,
  v1UserPrompt,
  V2_REPRESENTATION,
  v2UserPrompt,
  XML_OUTPUT_FORMAT,
  type MemoryEntry,
} from "./prompts.js";
import { parseJsonReply, parseXmlReply, type ParsedReply } from "./suggestion-parser.js";

interface Dialect {
  readonly name: string;
  readonly format: "xml" | "json";
  readonly defaultObjective: string;
  readonly defaultMemorySize: number;
  readonly defaultMaxTokens: number;
  /** OPRO keeps every past example, not a bounded memory. */
  readonly unboundedHistory?: boolean;
  readonly system: string;
  user(objective: string, problem: ProblemInstance, memory: readonly MemoryEntry[]): string;
}

const DEFAULT_OBJECTIVE = "Change the values of the variables in #Variables to improve the output according to #Feedback.";

export const DIALECTS: Readonly<Record<string, Dialect>> = {
  OptoPrimeV2: {
    name: "OptoPrimeV2",
    format: "xml",
    defaultObjective: DEFAULT_OBJECTIVE,
    defaultMemorySize: 0,
    defaultMaxTokens: 8192,
    system: `${V2_REPRESENTATION}\n\n${XML_OUTPUT_FORMAT}`,
    user: v2UserPrompt,
  },
  OPROv2: {
    name: "OPROv2",
    format: "xml",
    defaultObjective: "Propose a new solution that will incorporate the feedback.",
    defaultMemorySize: 5,
    defaultMaxTokens: 8192,
    system: `${OPRO_V2_REPRESENTATION}\n\n${OPRO_V2_OUTPUT_FORMAT}`,
    user: oproV2UserPrompt,
  },
  OptoPrime: {
    name: "OptoPrime",
    format: "json",
    defaultObjective: DEFAULT_OBJECTIVE,
    defaultMemorySize: 0,
    defaultMaxTokens: 4096,
    system: `${V1_REPRESENTATION}\n\n${JSON_OUTPUT_FORMAT}`,
    user: v1UserPrompt,
  },
  OPRO: {
    name: "OPRO",
    format: "json",
    defaultObjective: "Come up with new values of the variables according to the feedback.",
    defaultMemorySize: 0,
    defaultMaxTokens: 4096,
    unboundedHistory: true,
    // The reference's OPRO asks for OptoPrime's JSON (reasoning, answer, suggestion) without explaining the parts (parity scenario opro-v1-prompt).
    system: JSON_OUTPUT_FORMAT,
    user: (objective, problem, memory) =>
      oproUserPrompt(objective, [...memory, { variables: Object.fromEntries(problem.variables.map((v) => [v.name, v.value])), feedback: problem.feedback }]),
  },
};

export interface PromptOptimizerOptions {
  readonly objective?: string;
  readonly memorySize?: number;
  readonly maxTokens?: number;
}

export function promptOptimizerOptions(kwargs: Kwargs): PromptOptimizerOptions {
  return {
    ...(typeof kwargs.objective === "string" ? { objective: kwargs.objective } : {}),
    ...(typeof kwargs.memory_size === "number" ? { memorySize: kwargs.memory_size } : {}),
    ...(typeof kwargs.max_tokens === "number" ? { maxTokens: kwargs.max_tokens } : {}),
  };
}

export class PromptOptimizer implements Optimizer {
  private readonly memory: MemoryEntry[];

  constructor(
    private readonly dialect: Dialect,
    private readonly llm: Llm,
    private readonly options: PromptOptimizerOptions = {},
    memory: readonly MemoryEntry[] = [],
  ) {
    this.memory = [...memory];
  }

  get name(): string {
    return this.dialect.name;
  }

  get objective(): string {
    return this.options.objective ?? this.dialect.defaultObjective;
  }

  /** The messages for a problem with the current memory (exposed for prompt tests). */
  messages(problem: ProblemInstance): ChatMessage[] {
    return [
      { role: "system", content: this.dialect.system },
      { role: "user", content: this.dialect.user(this.objective, problem, this.memory) },
    ];
  }

  fork(): PromptOptimizer {
    return new PromptOptimizer(this.dialect, this.llm, this.options, this.memory);
  }

  async propose(problem: ProblemInstance, signal: AbortSignal): Promise<Proposal> {
    const messages = this.messages(problem);
    this.remember(problem);
    const response = await this.llm.complete(
      {
        messages,
        maxTokens: this.options.maxTokens ?? this.dialect.defaultMaxTokens,
        ...(this.dialect.format === "json" ? { responseFormat: "json_object" as const } : {}),
      },
      signal,
    );
    const codeNames = new Set(problem.variables.filter((v) => v.kind === "code").map((v) => v.name));
    const parsed = this.dialect.format === "xml" ? parseXmlReply(response.content, codeNames) : parseJsonReply(response.content, codeNames);
    return toProposal(problem, parsed, response.content);
  }

  /** The current step joins the memory after its prompt was built: prompts show earlier steps only. */
  private remember(problem: ProblemInstance): void {
    const limit = this.dialect.unboundedHistory ? Infinity : (this.options.memorySize ?? this.dialect.defaultMemorySize);
    if (limit <= 0) return;
    this.memory.push({ variables: Object.fromEntries(problem.variables.map((v) => [v.name, v.value])), feedback: problem.feedback });
    while (this.memory.length > limit) this.memory.shift();
  }
}

/** A parsed reply as a proposal: its values coerced to the variables' types, with notes on what could not be used. */
export function toProposal(problem: ProblemInstance, parsed: ParsedReply, reply: string): Proposal {
  const notes: string[] = parsed.problem ? [`unreadable reply: ${parsed.problem}`] : [];
  const update: Record<string, JsonValue> = {};
  for (const variable of problem.variables) {
    if (!(variable.name in parsed.suggestion)) continue;
    const coerced = coerceValue(variable.kind, parsed.suggestion[variable.name]);
    if (coerced.ok) update[parameterOf(variable)] = coerced.value;
    else notes.push(`${variable.name}: ${coerced.problem}; left unchanged`);
  }
  const unknown = Object.keys(parsed.suggestion).filter((k) => !problem.variables.some((v) => v.name === k));
  if (unknown.length > 0) notes.push(`ignored suggestions for unknown variables: ${unknown.join(", ")}`);
  return { update, reply, reasoning: parsed.reasoning, terminated: parsed.terminated, notes };
}
