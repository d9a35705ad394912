/**
 * POLCA on the PrioritySearch loop: with ε = 0 and no summarizer it is PrioritySearch; with ε > 0
 * only the proposals the ε-net keeps are validated and enter memory; the summarizer's context
 * reaches the optimizer's prompts; its kwargs are the original's (unknown ones refused).
 */
import { describe, expect, it } from "vitest";
import type { ChatRequest, ChatResponse } from "../../../../src/llm/llm.js";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import { negativeAbsoluteError } from "../../../../adapters/tasks/guides.js";
import { acceptedTrainerKwargs, findTrainer } from "../../../../src/opt/trainer-catalog.js";
import { candidateText } from "../../../../src/opt/trainers/polca-candidate-text.js";
import { NO_TRAJECTORIES, Summarizer, SUMMARY_PREFIX } from "../../../../src/opt/trainers/polca-summarizer.js";
import { polcaTrainer, readPolcaOptions } from "../../../../src/opt/trainers/polca.js";
import { prioritySearchTrainer } from "../../../../src/opt/trainers/priority-search.js";
import type { SearchCandidate } from "../../../../src/opt/trainers/priority-search-memory.js";
import { createRng } from "../../../../src/opt/rng.js";
import type { Optimizer } from "../../../../src/opt/optimizer.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { harnessContext, runTrainer } from "../../../support/trainer-harness.js";

/** One float `value` (0) and one example whose target is 3: score −|value − 3|. */
const bundle = (): TaskBundle => ({
  taskId: "test:target",
  parameters: [{ name: "value", kind: "number", value: 0, description: "A number.", trainable: true }],
  agent: { name: "Echo", run: (_input, values) => values.value },
  guide: negativeAbsoluteError,
  train_dataset: { inputs: [0], infos: [3] },
  optimizer_kwargs: {},
  metadata: {},
});

/** Two exploration copies of the initial value, two proposals each: one iteration, four proposals. */
const KWARGS = { num_epochs: 1, num_steps: 1, num_batches: 1, num_candidates: 2, num_proposals: 2 };
const SCRIPT = () => [xmlReply({ value: 1.0 }), xmlReply({ value: 2.5 }), xmlReply({ value: 4.0 }), xmlReply({ value: 3.25 })];

/** A one-dimensional embedding: the candidate's value, read back from its text. */
const embedValue = (text: string) => [Number(/'value': (-?[\d.]+)/.exec(text)![1])];

describe("POLCA", () => {
  it("with ε = 0 and no summarizer it is PrioritySearch, and embeds nothing", async () => {
    const ps = await runTrainer(prioritySearchTrainer, bundle(), scriptedLlm(SCRIPT()), { kwargs: KWARGS });
    const polca = await runTrainer(polcaTrainer, bundle(), scriptedLlm(SCRIPT()), { kwargs: { ...KWARGS, epsilon: 0 } });
    expect(polca.values).toEqual(ps.values);
    expect(polca.iterations).toEqual(ps.iterations);
  });

  it("with ε = 1, validates only the proposals the ε-net keeps: 4.0 (farthest from 0), then 2.5 (1.5 from the net); 1.0 and 3.25 are within ε", async () => {
    const llm = scriptedLlm(SCRIPT());
    const { context, events } = harnessContext(bundle(), llm, { kwargs: { ...KWARGS, epsilon: 1 } });
    const embedded: string[] = [];
    const run = await polcaTrainer.train({
      ...context,
      embed: (texts) => {
        embedded.push(...texts);
        return Promise.resolve(texts.map(embedValue));
      },
    });
    // The net: the two exploration copies of 0 (one text, embedded once), then the four proposals.
    expect(embedded).toEqual([candidateText({ value: 0 }), candidateText({ value: 1 }), candidateText({ value: 2.5 }), candidateText({ value: 4 }), candidateText({ value: 3.25 })]);
    const [iteration] = events.filter((e) => e.type === "IterationCompleted").map((e) => e.data as Record<string, unknown>);
    // Exploration (2) + validation of the two kept proposals (2), not of all four.
    expect(iteration).toMatchObject({ evaluations: 4, values: { value: 2.5 }, score: -0.5 });
    expect(iteration!.notes).toContain("POLCA: proposed 4 new candidates, 2 of them are added to the memory (distances to it: [4.0000, 1.5000])");
    expect(run.values).toEqual({ value: 2.5 });
  });

  it("ε > 0 without an embeddings endpoint is an error naming the cause", async () => {
    await expect(runTrainer(polcaTrainer, bundle(), scriptedLlm(SCRIPT()), { kwargs: KWARGS })).rejects.toThrow("POLCA: epsilon 0.1 needs embeddings, and this job has no embeddings endpoint");
  });

  it("use_summarizer: one summary call before the proposals, and its summary after the prefix in every optimizer prompt", async () => {
    const llm = scriptedLlm(SCRIPT());
    const { context } = harnessContext(bundle(), llm, { kwargs: { ...KWARGS, epsilon: 0, use_summarizer: true } });
    const asked: ChatRequest[] = [];
    await polcaTrainer.train({
      ...context,
      summarize: (request): Promise<ChatResponse> => {
        asked.push(request);
        return Promise.resolve({ content: "<reasoning>r</reasoning><summary> Aim for three. </summary>", usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, model: "m", estimated: true });
      },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.messages[1]!.content).toContain("Current Summary (from previous analysis):\n        " + SUMMARY_PREFIX);
    expect(llm.requests).toHaveLength(4);
    for (const r of llm.requests) expect(JSON.stringify(r.messages)).toContain(JSON.stringify(`${SUMMARY_PREFIX}Aim for three.`).slice(1, -1));
  });

  it("takes the original's kwargs and defaults, reads the legacy ps_* names, and refuses unknown ones", async () => {
    expect(readPolcaOptions({})).toEqual({ epsilon: 0.1, useSummarizer: false, context: SUMMARY_PREFIX, embeddingModel: null });
    const accepted = await acceptedTrainerKwargs(findTrainer("POLCA"));
    for (const name of ["epsilon", "use_summarizer", "context", "embedding_model", "ps_steps", "ps_candidates", "batch_size", "num_candidates"]) expect(accepted).toContain(name);
    expect(accepted).not.toContain("summarizer_model_name");
    // ps_candidates 1: one exploration candidate, so one optimizer call per proposal.
    const llm = scriptedLlm([xmlReply({ value: 2 })]);
    const run = await runTrainer(polcaTrainer, bundle(), llm, { kwargs: { ps_steps: 2, ps_candidates: 1, epsilon: 0 } });
    expect(llm.requests).toHaveLength(1);
    expect(run.values).toEqual({ value: 2 });
  });
});

describe("POLCA's summarizer", () => {
  const candidate = (id: number, value: number, scores: (number | null)[]): SearchCandidate => ({
    id,
    values: { value },
    optimizer: {} as Optimizer,
    parentId: null,
    scores,
    inputs: scores.map(() => 0),
    rollouts: scores.map((score, i) => ({ input: `q${i}`, info: null, response: `a${i}`, score, feedback: `f${i}` })),
  });

  it("shows each unseen candidate with scored rollouts once: its values, one successful (> 0) and one failed (≤ 0) trajectory", () => {
    const s = new Summarizer(createRng(1));
    const pool = [candidate(1, 2, [1]), candidate(2, 5, [0]), candidate(3, 7, [null]), candidate(1, 2, [1])];
    const text = s.trajectories(pool);
    // Candidate 3 has no scored rollout; candidate 1 appears once although listed twice.
    expect(text.match(/Candidate pamameters/g)).toHaveLength(2);
    expect(text).toContain("Candidate pamameters: dict_values([2]).\nSuccessful trajectory: ## Task Trajectory\n\n## Module Parameters\n{'value': 2}\n\n## Input \nq0\n\n## Output\na0\n\n## Result\n- **Score:** 1\n- **Feedback:** f0.");
    expect(text).toContain("Candidate pamameters: dict_values([5]).\nFailed trajectory: ");
    // Seen candidates are not shown again.
    expect(s.trajectories(pool)).toBe("");
  });

  it("without trajectories it makes no call; a reply without <summary> rejects and keeps the summary", async () => {
    const s = new Summarizer(createRng(1));
    let calls = 0;
    const chat = (): Promise<ChatResponse> => {
      calls += 1;
      return Promise.resolve({ content: "no tags", usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, model: "m", estimated: true });
    };
    await expect(s.summarize([], chat)).resolves.toBe(NO_TRAJECTORIES);
    expect(calls).toBe(0);
    await expect(s.summarize([candidate(1, 2, [1])], chat)).rejects.toThrow("<summary>");
    expect(s.currentSummary).toBe(SUMMARY_PREFIX);
  });
});
