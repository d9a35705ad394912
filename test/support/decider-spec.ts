/**
 * Decider tests in the given / when / then style (Emmett's `DeciderSpecification`): given the
 * events a stream already holds, when a command arrives, then these events (or this rejection)
 * follow. Every `then` also checks what replay relies on: `evolve` folds the decided events, and,
 * when the spec has a verifier (`replay --verify`), the whole stream verifies without a problem.
 * `givenLog` turns a stream into the stored rows a verifier reads, for tests of doctored logs.
 */
import { expect } from "vitest";
import type { Decider } from "../../src/engine/job-decider.js";

export interface DeciderSpecOptions<Event> {
  /** The problems a verifier finds in a whole stream (none expected after a `then`). */
  readonly verify?: (stream: readonly Event[]) => readonly unknown[];
}

export function deciderSpec<State, Command, Event>(decider: Decider<State, Command, Event, Event>, streamId: string, options: DeciderSpecOptions<Event> = {}) {
  const fold = (events: readonly Event[], from: State = decider.initialState()) => events.reduce(decider.evolve, from);
  return {
    given(history: readonly Event[]) {
      return {
        when(command: Command) {
          const decide = () => decider.decide(streamId, fold(history), command);
          return {
            /** The decided events match `expected` (each a subset of its event), in order; returns them. */
            then(expected: readonly Partial<Event>[]): Event[] {
              const events = decide();
              expect(events).toEqual(expected.map((e) => expect.objectContaining(e as Record<string, unknown>) as unknown));
              expect(() => fold(events, fold(history))).not.toThrow();
              if (options.verify) expect(options.verify([...history, ...events])).toEqual([]);
              return events;
            },
            /** The decider refuses the command with an error of `type` whose message matches `reason`. */
            thenThrows(type: new (...args: never[]) => Error, reason: RegExp): void {
              expect(decide).toThrow(type);
              expect(decide).toThrow(reason);
            },
          };
        },
      };
    },
  };
}
