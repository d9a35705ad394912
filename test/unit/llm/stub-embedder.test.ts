/** Mode stub's embeddings: the same vector for the same text in every run, unit length, labelled stub. */
import { describe, expect, it } from "vitest";
import { createStubEmbedder, STUB_EMBEDDING_DIMENSIONS, stubEmbedding } from "../../../adapters/llm/stub-embedder.js";
import { STUB_MODEL } from "../../../adapters/llm/stub-llm.js";

describe("the stub embedder", () => {
  it("gives equal texts one vector and different texts different ones, of unit length", () => {
    const a = stubEmbedding("{'x': 1}");
    expect(stubEmbedding("{'x': 1}")).toEqual(a);
    expect(stubEmbedding("{'x': 2}")).not.toEqual(a);
    expect(a).toHaveLength(STUB_EMBEDDING_DIMENSIONS);
    expect(Math.hypot(...a)).toBeCloseTo(1, 4);
  });

  it("labels its reply as the stub's, with estimated prompt tokens and no completion", async () => {
    const reply = await createStubEmbedder().embed({ input: "some text here" });
    expect(reply).toMatchObject({ model: STUB_MODEL, estimated: true, usage: { prompt_tokens: 4, completion_tokens: 0, total_tokens: 4 } });
    expect(reply.embedding).toEqual(stubEmbedding("some text here"));
  });
});
