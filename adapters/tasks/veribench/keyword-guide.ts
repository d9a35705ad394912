/**
 * The original's fallback guide (what it runs without its private entry point): a heuristic on the
 * Lean text, no compiler. +0.1 for each keyword that occurs anywhere in the text (as a substring:
 * `def` counts in `default`), at most 0.5; −0.1 for each "sorry" in any case, at most 0.3; +0.2 when
 * the text is longer than 50 characters; the sum clamped to [0, 1].
 */
import type { Guide, GuideResult } from "../../../src/domain/guide.js";

/** In the original's set order; only membership matters. */
export const LEAN_KEYWORDS = ["theorem", "lemma", "def", "inductive", "structure", "namespace", "open", "import", "where", "by"] as const;

/** Non-overlapping occurrences, as Python's `str.count`. */
function countOf(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

export function keywordScore(text: string): GuideResult {
  const keywordHits = LEAN_KEYWORDS.filter((keyword) => text.includes(keyword)).length;
  let score = 0.0;
  score += Math.min(keywordHits * 0.1, 0.5);
  const sorryCount = countOf(text.toLowerCase(), "sorry");
  score -= Math.min(sorryCount * 0.1, 0.3);
  // Python's len counts code points, not UTF-16 units.
  const length = [...text].length;
  if (length > 50) score += 0.2;
  score = Math.max(0.0, Math.min(score, 1.0));
  return { score, feedback: `lean_keywords=${keywordHits}; sorry_count=${sorryCount}; len=${length}` };
}

export const keywordGuide: Guide = {
  name: "trace_bench.veribench_adapter._VBGuide",
  evaluate: (_input, response) => keywordScore(typeof response === "string" ? response : String(response)),
};
