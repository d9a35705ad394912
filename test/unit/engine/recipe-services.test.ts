/**
 * A worker's services per run recipe: one set per recipe (built once, shared by its jobs), never
 * closed while a job uses it, idle sets beyond `keepIdle` closed least recently used first, a
 * failed build not kept.
 */
import { describe, expect, it } from "vitest";
import { RecipeServices } from "../../../src/engine/executor/recipe-services.js";

interface Built {
  readonly recipe: string;
  closed: boolean;
}

function cache(keepIdle: number, fail: (recipe: string) => boolean = () => false) {
  const built: Built[] = [];
  const services = new RecipeServices<{ run: string }, Built>({
    build: async ({ run }) => {
      if (fail(run)) throw new Error(`cannot build ${run}`);
      const one = { recipe: run, closed: false };
      built.push(one);
      return one;
    },
    close: (one) => {
      if (one.closed) throw new Error(`${one.recipe} closed twice`);
      one.closed = true;
    },
    keepIdle,
  });
  return { services, built };
}

/** Lets the closes scheduled on a built set's promise run. */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("RecipeServices", () => {
  it("gives each recipe its own set, built once for all its jobs", async () => {
    const { services, built } = cache(2);
    const [a1, b1, a2] = await Promise.all([services.acquire({ run: "a" }), services.acquire({ run: "b" }), services.acquire({ run: "a" })]);
    expect(a1!.services).toBe(a2!.services);
    expect(a1!.services).not.toBe(b1!.services);
    expect(built.map((b) => b.recipe)).toEqual(["a", "b"]);
  });

  it("closes the least recently used idle sets beyond keepIdle, and none in use", async () => {
    const { services, built } = cache(1);
    const a = await services.acquire({ run: "a" });
    const b = await services.acquire({ run: "b" });
    const c = await services.acquire({ run: "c" });
    b.release();
    c.release();
    await settled();
    // a is in use: kept; b was idle first: closed; c is the one idle set kept.
    expect(built.map((x) => [x.recipe, x.closed])).toEqual([["a", false], ["b", true], ["c", false]]);
    a.release();
    await settled();
    expect(built.map((x) => [x.recipe, x.closed])).toEqual([["a", false], ["b", true], ["c", true]]);
    // The next job of c builds it anew; a (kept) is reused.
    const again = await services.acquire({ run: "c" });
    expect(again.services).toBe(built[3]);
    expect((await services.acquire({ run: "a" })).services).toBe(built[0]);
  });

  it("a release said twice counts once", async () => {
    const { services, built } = cache(0);
    const a1 = await services.acquire({ run: "a" });
    const a2 = await services.acquire({ run: "a" });
    a1.release();
    a1.release();
    await settled();
    expect(built[0]!.closed).toBe(false);
    a2.release();
    await settled();
    expect(built[0]!.closed).toBe(true);
  });

  it("a failed build is not kept: the run's next job builds again", async () => {
    let failing = true;
    const { services, built } = cache(2, () => failing);
    await expect(services.acquire({ run: "a" })).rejects.toThrow("cannot build a");
    expect(services.size).toBe(0);
    failing = false;
    await services.acquire({ run: "a" });
    expect(built).toHaveLength(1);
  });

  it("closeAll closes every set once", async () => {
    const { services, built } = cache(2);
    await services.acquire({ run: "a" });
    (await services.acquire({ run: "b" })).release();
    services.closeAll();
    await settled();
    expect(built.every((b) => b.closed)).toBe(true);
    expect(services.size).toBe(0);
  });
});
