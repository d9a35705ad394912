/**
 * similarityRatio is difflib's SequenceMatcher(None, a, b).ratio(): the expected values below were
 * computed with Python 3's difflib on the same strings (autojunk included: for a `b` of 200 or
 * more characters, its characters found more than 1% of the time never start a match, which is why
 * the two long near-copies below score almost nothing).
 */
import { describe, expect, it } from "vitest";
import { similarityRatio } from "../../../../src/opt/optimizers/sequence-similarity.js";

const CASES: [string, string, number][] = [
  ["", "", 1.0],
  ["abc", "", 0.0],
  ["abcd", "bcde", 0.75],
  ["the cat sat", "the cat sat on the mat", 0.6666666666666666],
  ['{"reasoning": "raise x", "answer": "", "suggestion": {"x": 2}}', '{"reasoning": "lower x", "answer": "", "suggestion": {"x": -1}}', 0.912],
  // Python counts code points: the emoji is one character.
  ["é🙂a", "e🙂a", 0.6666666666666666],
  ["a".repeat(10) + "b".repeat(190) + "c", "b".repeat(195) + "a".repeat(5) + "c", 0.004975124378109453],
  ["reply: " + "x = 1; ".repeat(40), "reply: " + "x = 2; ".repeat(40), 0.03832752613240418],
];

describe("similarityRatio (difflib's ratio)", () => {
  it.each(CASES)("%j vs %j is %d", (a, b, expected) => {
    expect(similarityRatio(a, b)).toBeCloseTo(expected, 12);
  });

  it("a text is wholly like itself (below autojunk's size)", () => {
    expect(similarityRatio("same words here", "same words here")).toBe(1);
  });
});
