/**
 * finished-run-facts.ts names what it reads without importing its owners (so that the CLI's main
 * thread loads neither the renderers nor the event schema): the names must stay theirs.
 */
import { describe, expect, it } from "vitest";
import { PROJECTIONS_POSITION } from "../../../src/events/finished-run-facts.js";
import { PROJECTIONS } from "../../../src/events/projection-subscriber.js";

describe("the finished run's facts", () => {
  it("read the projections' position under the projection subscriber's name", () => {
    expect(PROJECTIONS_POSITION).toBe(PROJECTIONS);
  });
});
