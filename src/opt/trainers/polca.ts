/**
 * POLCA (OpenTrace `experimental`, algorithms reference §3.11): PrioritySearch whose memory is kept
 * an ε-net over candidate embeddings, with an optional summarizer whose summary guides the
 * optimizer.
 *
 * - ε-net (polca-epsilon-net.ts): after each round of proposals, every candidate in memory, every
 *   exploration candidate and every new one is embedded (the text: polca-candidate-text.ts; one
 *   `/embeddings` call per distinct text, role `embedding`, model `embedding_model`, else
 *   llm.embedding's); a new candidate within ε of the net is dropped, the farthest joins it, and
 *   so on. Only the candidates that joined are validated and enter memory. ε = 0: no filtering and
 *   no embedding call.
 * - Summarizer (`use_summarizer`, polca-summarizer.ts): before each round of proposals, one call
 *   (role `summarizer`) summarizes up to 5 unseen candidates' trajectories; the context, `context`
 *   at first and then the prefix plus the latest summary, is appended to the feedback of every
 *   proposal prompt of the round (the original hands it to `optimizer.set_context`, which no
 *   optimizer of the pinned OpenTrace defines; docs/differences.md). A failed summary keeps the
 *   previous context. With the summarizer, candidates keep their full rollouts.
 *
 * Kwargs: PrioritySearch's, with OpenTrace's train defaults (Trace-Bench's PrioritySearch defaults
 * and aliases apply to `PrioritySearch` alone, so they are not part of POLCA's job ids), plus
 * `epsilon` (0.1), `use_summarizer` (false), `context`, `embedding_model`. The legacy `ps_*` names
 * the original's configs give POLCA are read as the `num_*` they stand for.
 */
import type { Kwargs } from "../../config/kwargs.js";
import type { Trainer, TrainerContext } from "../trainer.js";
import { candidateText } from "./polca-candidate-text.js";
import { epsilonNetSelect } from "./polca-epsilon-net.js";
import { NO_TRAJECTORIES, SUMMARY_PREFIX, Summarizer } from "./polca-summarizer.js";
import { boolKwarg, numberKwarg, readPrioritySearchOptions, TrainerKwargError } from "./priority-search-options.js";
import type { SearchCandidate } from "./priority-search-memory.js";
import { PRIORITY_SEARCH_KWARGS, runPrioritySearch, type SearchHooks } from "./priority-search.js";

const LABEL = "POLCA";

/** The legacy spellings (spec §2.6) read as the PrioritySearch kwargs they stand for. */
const LEGACY_NAMES: Readonly<Record<string, string>> = {
  ps_steps: "num_steps",
  ps_batches: "num_batches",
  ps_candidates: "num_candidates",
  ps_proposals: "num_proposals",
  ps_mem_update: "memory_update_frequency",
};

export const POLCA_KWARGS: readonly string[] = [...PRIORITY_SEARCH_KWARGS, "epsilon", "use_summarizer", "context", "embedding_model", ...Object.keys(LEGACY_NAMES)];

export interface PolcaOptions {
  readonly epsilon: number;
  readonly useSummarizer: boolean;
  /** The context before any summary (and after a failed one). */
  readonly context: string;
  /** null: the run's embedding model (llm.embedding.model, else the original's default). */
  readonly embeddingModel: string | null;
}

function textKwarg(kwargs: Kwargs, name: string, fallback: string | null): string | null {
  const value = kwargs[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "string") throw new TrainerKwargError(`${LABEL}: ${name} must be text, got ${JSON.stringify(value)}`);
  return value;
}

export function readPolcaOptions(kwargs: Kwargs): PolcaOptions {
  const epsilon = numberKwarg(kwargs, LABEL, "epsilon", 0.1);
  if (!Number.isFinite(epsilon)) throw new TrainerKwargError(`${LABEL}: epsilon must be a finite number, got ${JSON.stringify(kwargs.epsilon)}`);
  return {
    epsilon,
    useSummarizer: boolKwarg(kwargs, LABEL, "use_summarizer", false),
    context: textKwarg(kwargs, "context", SUMMARY_PREFIX)!,
    embeddingModel: textKwarg(kwargs, "embedding_model", null),
  };
}

/** The kwargs with each legacy name copied to the name it stands for (unless that is given too). */
export function withLegacyNames(kwargs: Kwargs): Kwargs {
  const out: Kwargs = { ...kwargs };
  for (const [legacy, name] of Object.entries(LEGACY_NAMES)) if (Object.hasOwn(kwargs, legacy) && !Object.hasOwn(kwargs, name)) out[name] = kwargs[legacy]!;
  return out;
}

/** The ε-net filter and the summarizer context, as hooks of the PrioritySearch loop. */
export function polcaHooks(context: TrainerContext, options: PolcaOptions): SearchHooks {
  const embeddings = new Map<string, readonly number[]>();
  const embeddingsOf = async (candidates: readonly SearchCandidate[]): Promise<(readonly number[])[]> => {
    const texts = candidates.map((c) => candidateText(c.values));
    const missing = [...new Set(texts.filter((t) => !embeddings.has(t)))];
    if (missing.length > 0) {
      if (context.embed === undefined) throw new Error(`${LABEL}: epsilon ${options.epsilon} needs embeddings, and this job has no embeddings endpoint`);
      const vectors = await context.embed(missing, options.embeddingModel ?? undefined);
      missing.forEach((t, i) => embeddings.set(t, vectors[i]!));
    }
    return texts.map((t) => embeddings.get(t)!);
  };

  let summarizer: Summarizer | null = null;
  let feedbackContext = options.context;

  return {
    keepRollouts: options.useSummarizer,
    ...(options.epsilon === 0
      ? {}
      : {
          filterCandidates: async (proposed, pool) => {
            if (proposed.length === 0) return [];
            const vectors = await embeddingsOf([...pool, ...proposed]);
            const net = vectors.slice(0, pool.length);
            const selection = epsilonNetSelect(
              net,
              proposed.map((item, i) => ({ item, embedding: vectors[pool.length + i]! })),
              options.epsilon,
            );
            const distances = selection.distances.map((d) => (Number.isFinite(d) ? d.toFixed(4) : String(d))).join(", ");
            context.note(`${LABEL}: proposed ${proposed.length} new candidates, ${selection.added.length} of them are added to the memory (distances to it: [${distances}])`);
            return selection.added;
          },
        }),
    ...(options.useSummarizer
      ? {
          proposalContext: async (pool) => {
            if (context.summarize === undefined) throw new Error(`${LABEL}: use_summarizer needs an LLM for the summarizer, and this job has none`);
            // Forked on first use, after PrioritySearch's own streams: POLCA's other draws stay as PrioritySearch's.
            summarizer ??= new Summarizer(context.rng.fork("polca/summarizer"));
            try {
              const summary = await summarizer.summarize(pool, (request) => context.summarize!(request));
              feedbackContext = `${SUMMARY_PREFIX}${summary}`;
              if (summary === NO_TRAJECTORIES) context.note(`${LABEL}: no candidate left to summarize`);
            } catch (error) {
              if (context.signal.aborted) throw error;
              context.note(`${LABEL}: summary failed (${error instanceof Error ? error.message : String(error)}); using the previous context`);
            }
            return `\n\n${feedbackContext}`;
          },
        }
      : {}),
  };
}

export const polcaTrainer: Trainer = {
  id: LABEL,
  kwargs: POLCA_KWARGS,
  train(context) {
    const kwargs = withLegacyNames(context.kwargs);
    const options = readPolcaOptions(kwargs);
    return runPrioritySearch(context, readPrioritySearchOptions(kwargs, LABEL), undefined, polcaHooks(context, options));
  },
};
