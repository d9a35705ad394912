/**
 * GSM8K's answer rule as the original's multiobjective_gsm8k task applies it: the final answer is
 * the first number after "####", else the last number in the text; answers compare after
 * dropping thousands separators and a zero fraction ("18.0" equals "18").
 */

/** A number as GSM8K writes one: sign, thousands separators, a decimal part or a fraction. */
const NUMBER = /-?\d+(?:,\d{3})*(?:\.\d+)?(?:\/\d+)?/;
const NUMBERS = new RegExp(NUMBER.source, "g");

/** The final answer of a reply or a reference, or null when it has no number. */
export function extractFinalAnswer(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  const s = String(text);
  const marked = /####\s*(.*)/.exec(s);
  if (marked) {
    const first = NUMBER.exec(marked[1]!.trim());
    if (first) return first[0].replaceAll(",", "").trim();
  }
  const all = s.match(NUMBERS);
  if (all === null) return null;
  return all[all.length - 1]!.replaceAll(",", "").trim();
}

/** "0018" → "18", "18.0" → "18"; anything else as it is (trimmed, without commas). */
export function normalizeAnswer(answer: string | null): string | null {
  if (answer === null) return null;
  const a = answer.trim().replaceAll(",", "");
  if (/^-?\d+$/.test(a)) return BigInt(a).toString();
  if (/^-?\d+\.\d+$/.test(a)) {
    const value = Number(a);
    if (Number.isInteger(value)) return BigInt(value).toString();
  }
  return a;
}

/** 0 when the reply's final answer equals the reference's, else 1 (the original's `error` metric). */
export function gsm8kError(response: string, reference: string): number {
  const predicted = normalizeAnswer(extractFinalAnswer(response));
  const gold = normalizeAnswer(extractFinalAnswer(reference));
  return predicted !== null && gold !== null && predicted === gold ? 0 : 1;
}

/** Python's str() of an optional answer, for the feedback text. */
export const shownAnswer = (answer: string | null): string => answer ?? "None";
