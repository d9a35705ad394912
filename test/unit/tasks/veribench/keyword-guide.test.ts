/**
 * The keyword guide scores hand-written Lean texts as the original's fallback guide does. Each
 * case states its arithmetic from the original's rules: +0.1 per keyword found as a substring
 * (at most 0.5), −0.1 per case-insensitive "sorry" (at most 0.3), +0.2 when longer than 50 code
 * points, then clamped to [0, 1]; the expected floats are what CPython computes for that sum.
 */
import { describe, expect, it } from "vitest";
import { keywordGuide, keywordScore } from "../../../../adapters/tasks/veribench/keyword-guide.js";

const cases: readonly { name: string; text: string; score: number; feedback: string }[] = [
  {
    name: "the initial placeholder: no keyword, 42 characters → 0.0",
    text: "-- placeholder: Lean 4 translation pending",
    score: 0.0,
    feedback: "lean_keywords=0; sorry_count=0; len=42",
  },
  {
    name: "substrings count: `def` in `default`, `by` in `bytes` → 2 × 0.1 = 0.2",
    text: "default bytes",
    score: 0.2,
    feedback: "lean_keywords=2; sorry_count=0; len=13",
  },
  {
    name: "all ten keywords are capped at 0.5, + 0.2 for length → 0.7",
    text: "import Mathlib\nopen Nat\nnamespace M\nstructure P where\n  x : Nat\ninductive T\n  | a\ndef f := 1\nlemma l : f = 1 := rfl\ntheorem t : f = 1 := by rfl\nend M",
    score: 0.7,
    feedback: "lean_keywords=10; sorry_count=0; len=149",
  },
  {
    name: "def, theorem, by (0.3) − one sorry (0.1) + length (0.2) → 0.4",
    text: "def add (a b : Nat) : Nat := a + b\n\ntheorem add_comm' (a b : Nat) : add a b = add b a := by\n  sorry",
    score: 0.4,
    feedback: "lean_keywords=3; sorry_count=1; len=99",
  },
  {
    name: "def, lemma, by (3 × 0.1) + length (0.2) → 0.5; `example` is no keyword",
    text: "def f (n : Nat) : Nat := n\nlemma f_id (n : Nat) : f n = n := by simp [f]\nexample : f 2 = 2 := by decide",
    score: 0.5,
    feedback: "lean_keywords=3; sorry_count=0; len=103",
  },
  {
    name: "four sorries cost 0.3 (the cap), not 0.4: theorem, by (0.2) − 0.3 + 0.2 → 0.10000000000000003",
    text: "theorem a := by sorry\ntheorem b := by sorry\ntheorem c := by sorry\ntheorem d := by sorry",
    score: 0.10000000000000003,
    feedback: "lean_keywords=2; sorry_count=4; len=87",
  },
  {
    name: "the clamp comes last: no keyword, 3 sorries (−0.3) + length (0.2) = −0.1 → 0.0",
    text: "sorry sorry sorry -- three holes, and not one keyword in this line",
    score: 0.0,
    feedback: "lean_keywords=0; sorry_count=3; len=66",
  },
  {
    name: "sorry in any case, counted without overlap (Sorry, SORRY, sorry, sorrysorry = 5); keywords are case-sensitive",
    text: "Sorry SORRY sorry sorrysorry",
    score: 0.0,
    feedback: "lean_keywords=0; sorry_count=5; len=28",
  },
  {
    name: "keywords are case-sensitive: Theorem, Lemma, DEF do not count → 0.0",
    text: "Theorem Lemma DEF -- none of these count",
    score: 0.0,
    feedback: "lean_keywords=0; sorry_count=0; len=40",
  },
  {
    name: "length is in code points: 48 ASCII + 2 astral characters = 50 (not > 50; 52 UTF-16 units) → theorem only, 0.1",
    text: "theorem t : True := trivial -- proof of it in Le𝔽𝕃",
    score: 0.1,
    feedback: "lean_keywords=1; sorry_count=0; len=50",
  },
];

describe("the VeriBench keyword guide (the original's fallback heuristic)", () => {
  for (const c of cases) {
    it(c.name, () => {
      expect(keywordScore(c.text)).toEqual({ score: c.score, feedback: c.feedback });
    });
  }

  it("the guide scores the agent's response text and carries the original's class name", async () => {
    const text = cases[3]!.text;
    expect(await keywordGuide.evaluate("query", text, { python_code: "", category: "x" }, {})).toEqual(keywordScore(text));
    expect(keywordGuide.name).toBe("trace_bench.veribench_adapter._VBGuide");
  });
});
