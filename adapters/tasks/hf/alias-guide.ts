/** The alias-tolerant score shared by MuSiQue, DROP and Qasper: 1 at ≥ 0.999, else the best F1 with feedback. */
import type { GuideResult } from "../../../src/domain/guide.js";
import { asExample } from "./hf-example.js";
import { bestAliasScore } from "./hf-text.js";

/** The example's aliases (`meta.aliases`), else its answer. */
export function aliasesOf(info: unknown): string[] {
  const example = asExample(info);
  const aliases = example.meta.aliases;
  return Array.isArray(aliases) ? aliases.map(String) : [example.answer];
}

export function aliasScore(reply: string, aliases: readonly string[], failure: (score: number) => string): GuideResult {
  const score = bestAliasScore(reply, aliases);
  if (score >= 0.999) return { score: 1, feedback: "Correct." };
  return { score, feedback: failure(score) };
}
