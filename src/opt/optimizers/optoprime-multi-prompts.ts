/**
 * The prompts OptoPrimeMulti adds to OptoPrime's (algorithms reference §2.6), in our own words:
 * the same parts in the same places as OpenTrace's (what is appended to the system prompt, the
 * `<<<`/`>>>` fences around earlier candidates, the numbered candidate lists, OptoPrime's JSON
 * reply format at the end of every instruction), so a model sees the same request.
 */
import { JSON_OUTPUT_FORMAT } from "./prompts.js";

/** self_refinement, calls after the first: the system prompt asks to improve the last candidate. */
export function refinementSystemPrompt(system: string, previous: string): string {
  return (
    `${system}\nImprove the previous solution to this problem so that it gives a much better answer and suggestion ` +
    `(keep the same JSON format; suggest changes to trainable variables only, never to inputs). PREVIOUS SOLUTION:<<<\n${previous}\n>>>`
  );
}

/** iterative_alternatives, calls after the first: every earlier candidate, and a request for a very different one. */
export function alternativesSystemPrompt(system: string, earlier: readonly string[]): string {
  const listed = earlier.map((candidate, i) => `CANDIDATE ${i + 1}: <<<\n${candidate}\n>>>`).join("\n");
  return (
    `${system}\nBelow are earlier CANDIDATE solutions. Answer the user's prompt with a new CANDIDATE solution that is very different from them, ` +
    `in the same JSON format (suggest changes to trainable variables only, never to inputs):\n${listed}\n`
  );
}

/** multi_experts without experts_list: one call that names the experts, as a JSON array of strings. */
export const EXPERTS_SYSTEM_PROMPT =
  'List complementary experts who could optimize a problem, as a JSON array of strings (for example: ["AI Engineer", "Compiler Specialist", ...]).';

export function expertsUserPrompt(count: number, system: string): string {
  return `NUMBER OF EXPERTS TO LIST: ${count}\nPROBLEM GIVEN TO THE EXPERTS:\n<<<\n${system}\n>>>\nJSON ARRAY OF EXPERTS:`;
}

/** The experts OpenTrace falls back on when the model names too few (in its order). */
export const DEFAULT_EXPERTS: readonly string[] = ["Algorithm Expert", "Performance Optimizer", "Out of the box problem solver", "AI Engineer", "Compiler Specialist"];

/** multi_experts: one persona's instructions; the user prompt is the problem, headed `PROBLEM:`. */
export function expertSystemPrompt(expert: string): string {
  return `You are a \`${expert}\`\nGive your most optimized solution to the problem below.\n${JSON_OUTPUT_FORMAT}`;
}

export const expertUserPrompt = (user: string) => `PROBLEM:\n\n${user}`;

/** best_of_n: analyse every candidate and answer with the most promising one, in the reply format. */
export const BEST_OF_N_SYSTEM_PROMPT =
  "You are an expert at judging solutions and choosing the most promising one. You are given candidate solutions to a problem. " +
  "First reason about the strengths and weaknesses of each candidate's answer and suggestion, then reply with the most promising candidate. " +
  JSON_OUTPUT_FORMAT;

/** moa (mixture of agents): one answer that combines the best parts of every response, in the reply format. */
export const MIXTURE_SYSTEM_PROMPT =
  "You are an expert at combining several solutions into one optimal solution. Given the responses below to a problem, reply with the optimal response " +
  "that combines the best parts of each (suggest changes to trainable variables only, never to inputs). " +
  JSON_OUTPUT_FORMAT;

/** The user prompt of a selection call: the problem, then each candidate under its numbered label. */
export function selectionUserPrompt(problem: string, label: "Candidate" | "Response", candidates: readonly string[]): string {
  const head = problem === "" ? "" : `Problem:\n${problem}\n\n`;
  return head + candidates.map((text, i) => `${label} ${i + 1}:\n${text}\n\n`).join("");
}
