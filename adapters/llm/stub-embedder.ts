/**
 * What mode stub embeds: no network, a unit vector seeded by the text's hash (the same text gives
 * the same vector in every run, equal texts are at distance 0, different ones about √2 apart),
 * under the model name `stub` with estimated usage, so no one takes it for a model's embedding.
 */
import { createHash } from "node:crypto";
import { estimateTokens, type Embedder, type EmbeddingRequest, type EmbeddingResponse } from "../../src/llm/llm.js";
import { createRng } from "../../src/opt/rng.js";
import { STUB_MODEL } from "./stub-llm.js";

/** Enough dimensions for distances to concentrate near √2; small enough for the log. */
export const STUB_EMBEDDING_DIMENSIONS = 32;

export function stubEmbedding(text: string): number[] {
  const seed = createHash("sha256").update(text).digest().readUInt32LE(0);
  const rng = createRng(seed);
  const raw = Array.from({ length: STUB_EMBEDDING_DIMENSIONS }, () => rng.next() * 2 - 1);
  const norm = Math.hypot(...raw) || 1;
  // Rounded, so the vector's JSON in the log is short and reads back exactly.
  return raw.map((x) => Math.round((x / norm) * 1e6) / 1e6);
}

export function createStubEmbedder(): Embedder {
  return {
    model: STUB_MODEL,
    embed(request: EmbeddingRequest): Promise<EmbeddingResponse> {
      const prompt_tokens = estimateTokens(request.input);
      return Promise.resolve({ embedding: stubEmbedding(request.input), model: STUB_MODEL, estimated: true, usage: { prompt_tokens, completion_tokens: 0, total_tokens: prompt_tokens } });
    },
  };
}
