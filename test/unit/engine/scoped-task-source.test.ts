/**
 * The task source is a scoped service: its registry (and with it every suite's worker pool) is
 * closed once, when the scope that built it closes, whether the program in it succeeded, failed or
 * was interrupted; not before.
 */
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { describe, expect, it } from "vitest";
import { scopedTaskSource, TaskSource } from "../../../src/engine/run-services.js";

function registry() {
  const calls = { loads: 0, closes: 0 };
  return {
    calls,
    value: {
      load: async () => {
        calls.loads += 1;
        throw new Error("no task here");
      },
      close: () => {
        calls.closes += 1;
      },
    },
  };
}

describe("scopedTaskSource", () => {
  for (const [name, program] of [
    ["succeeds", Effect.void],
    ["fails", Effect.fail("boom")],
    ["is interrupted", Effect.interrupt],
  ] as const) {
    it(`closes the registry once when the program in its scope ${name}, not before`, async () => {
      const r = registry();
      let openWhileUsed: boolean | null = null;
      const exit = await Effect.runPromiseExit(
        Effect.gen(function* () {
          const source = yield* TaskSource;
          yield* Effect.promise(() => source.load("t", {}).catch(() => undefined));
          openWhileUsed = r.calls.closes === 0;
          return yield* program;
        }).pipe(Effect.provide(scopedTaskSource(r.value))),
      );
      expect(Exit.isSuccess(exit)).toBe(name === "succeeds");
      expect(openWhileUsed).toBe(true);
      expect(r.calls).toEqual({ loads: 1, closes: 1 });
    });
  }
});
